package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.MathKernels;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import java.lang.foreign.MemorySegment;

/**
 * The element loops of the reductions that run on heap blocks ({@link Blocks}): doubles for float
 * elements (and integer elements where numpy computes in float64), longs for integer elements
 * (wrapping; U64 compared unsigned). Floats follow numpy: a NaN wins a minimum or maximum and an
 * arg-reduction picks the first NaN; ties pick the first index.
 */
final class BlockMath {
    private BlockMath() {
    }

    /** acc[j] = acc[j] (r) x[j] for SUM/MEAN (add), PROD, MIN, MAX. */
    static void combine(Reduction r, double[] acc, double[] x, int n) {
        switch (r) {
            case SUM, MEAN -> {
                for (int j = 0; j < n; j++) {
                    acc[j] += x[j];
                }
            }
            case PROD -> {
                for (int j = 0; j < n; j++) {
                    acc[j] *= x[j];
                }
            }
            case MIN -> {
                for (int j = 0; j < n; j++) {
                    double v = x[j];
                    double a = acc[j];
                    acc[j] = v < a || v != v ? v : a;
                }
            }
            case MAX -> {
                for (int j = 0; j < n; j++) {
                    double v = x[j];
                    double a = acc[j];
                    acc[j] = v > a || v != v ? v : a;
                }
            }
            default -> throw new IllegalArgumentException(r + " does not combine element-wise");
        }
    }

    /** As {@link #combine(Reduction, double[], double[], int)} for integers; u64 compares unsigned. */
    static void combine(Reduction r, boolean u64, long[] acc, long[] x, int n) {
        long flip = u64 ? Long.MIN_VALUE : 0;
        switch (r) {
            case SUM, MEAN -> {
                for (int j = 0; j < n; j++) {
                    acc[j] += x[j];
                }
            }
            case PROD -> {
                for (int j = 0; j < n; j++) {
                    acc[j] *= x[j];
                }
            }
            case MIN -> {
                for (int j = 0; j < n; j++) {
                    long v = x[j];
                    long a = acc[j];
                    acc[j] = (v ^ flip) < (a ^ flip) ? v : a;
                }
            }
            case MAX -> {
                for (int j = 0; j < n; j++) {
                    long v = x[j];
                    long a = acc[j];
                    acc[j] = (v ^ flip) > (a ^ flip) ? v : a;
                }
            }
            default -> throw new IllegalArgumentException(r + " does not combine element-wise");
        }
    }

    /**
     * acc[j] (r)= element j of rows 1 .. rows-1 of contiguous F64 rows (row i at element offset
     * off + i * rowStride) for SUM/MEAN, MIN or MAX, reading the segment directly four rows a pass:
     * the across walk's hot loop (numpy's axis-0 sum of a C-order matrix). acc holds row 0.
     * Math.min and Math.max keep numpy's NaN and compile without branches, which random data
     * would mispredict.
     */
    static void combineF64Rows(Reduction r, double[] acc, MemorySegment s, long off, long rowStride, long rows, int n) {
        long rs = rowStride * 8;
        int j0 = MathKernels.combineRowsF64(r == Reduction.MIN ? 1 : r == Reduction.MAX ? 2 : 0, acc, s, off * 8, rs, rows, n);
        long i = 1;
        for (; i + 4 <= rows; i += 4) {
            long o0 = (off + i * rowStride) * 8;
            long o1 = o0 + rs;
            long o2 = o1 + rs;
            long o3 = o2 + rs;
            switch (r) {
                case MIN -> {
                    for (int j = j0; j < n; j++) {
                        long b = 8L * j;
                        acc[j] = Math.min(Math.min(acc[j], Math.min(s.get(JAVA_DOUBLE, o0 + b), s.get(JAVA_DOUBLE, o1 + b))),
                                Math.min(s.get(JAVA_DOUBLE, o2 + b), s.get(JAVA_DOUBLE, o3 + b)));
                    }
                }
                case MAX -> {
                    for (int j = j0; j < n; j++) {
                        long b = 8L * j;
                        acc[j] = Math.max(Math.max(acc[j], Math.max(s.get(JAVA_DOUBLE, o0 + b), s.get(JAVA_DOUBLE, o1 + b))),
                                Math.max(s.get(JAVA_DOUBLE, o2 + b), s.get(JAVA_DOUBLE, o3 + b)));
                    }
                }
                default -> {
                    for (int j = j0; j < n; j++) {
                        long b = 8L * j;
                        acc[j] += (s.get(JAVA_DOUBLE, o0 + b) + s.get(JAVA_DOUBLE, o1 + b)) + (s.get(JAVA_DOUBLE, o2 + b) + s.get(JAVA_DOUBLE, o3 + b));
                    }
                }
            }
        }
        for (; i < rows; i++) {
            long o = (off + i * rowStride) * 8;
            for (int j = j0; j < n; j++) {
                double v = s.get(JAVA_DOUBLE, o + 8L * j);
                acc[j] = switch (r) {
                    case MIN -> Math.min(acc[j], v);
                    case MAX -> Math.max(acc[j], v);
                    default -> acc[j] + v;
                };
            }
        }
    }

    /** acc[j] += (x[j] - mean[j])^2. */
    static void addSquaredDeviations(double[] acc, double[] x, double[] mean, int n) {
        for (int j = 0; j < n; j++) {
            double d = x[j] - mean[j];
            acc[j] += d * d;
        }
    }

    /** Where x[j] beats best[j] (strictly; a NaN beats any number, not another NaN), takes it and index i. */
    static void arg(boolean max, double[] best, long[] index, double[] x, long i, int n) {
        for (int j = 0; j < n; j++) {
            double v = x[j];
            double b = best[j];
            if (b == b && (v != v || (max ? v > b : v < b))) {
                best[j] = v;
                index[j] = i;
            }
        }
    }

    /** As {@link #arg(boolean, double[], long[], double[], long, int)} for integers. */
    static void arg(boolean max, boolean u64, long[] best, long[] index, long[] x, long i, int n) {
        long flip = u64 ? Long.MIN_VALUE : 0;
        for (int j = 0; j < n; j++) {
            long v = x[j] ^ flip;
            long b = best[j] ^ flip;
            if (max ? v > b : v < b) {
                best[j] = x[j];
                index[j] = i;
            }
        }
    }

    /** Sum of x[0..n) in four running sums (the row kernels' order of adds). */
    static double sum(double[] x, int n) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int j = 0;
        for (; j + 4 <= n; j += 4) {
            s0 += x[j];
            s1 += x[j + 1];
            s2 += x[j + 2];
            s3 += x[j + 3];
        }
        for (; j < n; j++) {
            s0 += x[j];
        }
        return (s0 + s1) + (s2 + s3);
    }

    /** Sum of (x[j] - mean)^2 over x[0..n). */
    static double squaredDeviations(double[] x, int n, double mean) {
        double s0 = 0;
        double s1 = 0;
        int j = 0;
        for (; j + 2 <= n; j += 2) {
            double d0 = x[j] - mean;
            double d1 = x[j + 1] - mean;
            s0 += d0 * d0;
            s1 += d1 * d1;
        }
        for (; j < n; j++) {
            double d = x[j] - mean;
            s0 += d * d;
        }
        return s0 + s1;
    }

    static double product(double[] x, int n) {
        double p = 1;
        for (int j = 0; j < n; j++) {
            p *= x[j];
        }
        return p;
    }

    static long product(long[] x, int n) {
        long p = 1;
        for (int j = 0; j < n; j++) {
            p *= x[j];
        }
        return p;
    }

    /** Compensated running total (Neumaier): adds block results without losing the small ones. */
    static final class Total {
        private double sum;
        private double comp;

        void add(double v) {
            double t = sum + v;
            if (Double.isFinite(t)) {
                comp += Math.abs(sum) >= Math.abs(v) ? (sum - t) + v : (v - t) + sum;
            }
            sum = t;
        }

        double value() {
            return sum + comp;
        }
    }
}
