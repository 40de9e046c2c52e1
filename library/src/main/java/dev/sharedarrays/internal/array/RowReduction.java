package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Kernels;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;

/**
 * Products, variances and arg-reductions of one strided row (offset and stride in elements), and
 * of whole layouts row by row. Sums, minima and maxima of rows are the row kernels' ({@link Loops}).
 */
public final class RowReduction {
    /** Elements per block of {@link #arg}: the row kernels find the best block, one short scan finds the element (256 spent a fifth of the time in calls). */
    private static final int ARG_BLOCK = 32768;

    private RowReduction() {
    }

    /** The product of a row: doubles for floats; for integers the wrapping 64-bit product as its bits. */
    static double productAsDouble(ElementType t, MemorySegment s, long off, long stride, long n, double[] buf) {
        double p = 1;
        for (long b = 0; b < n; b += Blocks.SIZE) {
            int m = (int) Math.min(Blocks.SIZE, n - b);
            Blocks.load(t, s, off + b * stride, stride, m, buf);
            p *= BlockMath.product(buf, m);
        }
        return p;
    }

    static long productAsLong(ElementType t, MemorySegment s, long off, long stride, long n, long[] buf) {
        long p = 1;
        for (long b = 0; b < n; b += Blocks.SIZE) {
            int m = (int) Math.min(Blocks.SIZE, n - b);
            Blocks.load(t, s, off + b * stride, stride, m, buf);
            p *= BlockMath.product(buf, m);
        }
        return p;
    }

    /** Adds the row's elements, as doubles (numpy's float64 sum for a variance's mean), to total. */
    static void sum(ElementType t, MemorySegment s, long off, long stride, long n, double[] buf, BlockMath.Total total) {
        if (t.isFloatingPoint()) {
            int size = t.itemSize();
            total.add(Kernels.reduceFloat(t, Op.SUM, s, off * size, stride * size, n));
            return;
        }
        for (long b = 0; b < n; b += Blocks.SIZE) {
            int m = (int) Math.min(Blocks.SIZE, n - b);
            Blocks.load(t, s, off + b * stride, stride, m, buf);
            total.add(BlockMath.sum(buf, m));
        }
    }

    /** Adds the row's squared deviations from mean to total. */
    static void squaredDeviations(ElementType t, MemorySegment s, long off, long stride, long n, double mean, double[] buf,
                                  BlockMath.Total total) {
        for (long b = 0; b < n; b += Blocks.SIZE) {
            int m = (int) Math.min(Blocks.SIZE, n - b);
            Blocks.load(t, s, off + b * stride, stride, m, buf);
            total.add(BlockMath.squaredDeviations(buf, m, mean));
        }
    }

    /** numpy's var (ddof 0) of one row: the mean first, then the mean squared deviation from it. */
    static double variance(ElementType t, MemorySegment s, long off, long stride, long n, double[] buf) {
        BlockMath.Total sum = new BlockMath.Total();
        sum(t, s, off, stride, n, buf, sum);
        BlockMath.Total dev = new BlockMath.Total();
        squaredDeviations(t, s, off, stride, n, sum.value() / n, buf, dev);
        return dev.value() / n;
    }

    /**
     * The position in [0, n) of the row's first minimum or maximum; for floats the first NaN if
     * there is one (numpy). The row kernels find the best block (SIMD where they have it), then
     * one scan of that block finds the position.
     */
    static long arg(ElementType t, boolean max, MemorySegment s, long off, long stride, long n) {
        int size = t.itemSize();
        Op op = max ? Op.MAX : Op.MIN;
        long start = 0;
        long length = 0;
        if (t.isFloatingPoint()) {
            double best = 0;
            for (long b = 0; b < n; b += ARG_BLOCK) {
                long m = Math.min(ARG_BLOCK, n - b);
                double v = Kernels.reduceFloat(t, op, s, (off + b * stride) * size, stride * size, m);
                if (b == 0 || best == best && (v != v || (max ? v > best : v < best))) {
                    best = v;
                    start = b;
                    length = m;
                    if (v != v) {
                        break;
                    }
                }
            }
            for (long k = start; k < start + length; k++) {
                double x = ElementCodec.getDouble(t, s, off + k * stride);
                if (x == best || x != x && best != best) {
                    return k;
                }
            }
        } else {
            long flip = t.isUnsigned64() ? Long.MIN_VALUE : 0;
            long best = 0;
            for (long b = 0; b < n; b += ARG_BLOCK) {
                long m = Math.min(ARG_BLOCK, n - b);
                long v = Kernels.reduceInt(t, op, s, (off + b * stride) * size, stride * size, m);
                if (b == 0 || (max ? (v ^ flip) > (best ^ flip) : (v ^ flip) < (best ^ flip))) {
                    best = v;
                    start = b;
                    length = m;
                }
            }
            for (long k = start; k < start + length; k++) {
                if (ElementCodec.getLong(t, s, off + k * stride) == best) {
                    return k;
                }
            }
        }
        throw new IllegalStateException("no element of the best block equals its " + op.verb() + " (" + t + " row of " + n + ")");
    }

    /** A wrapped 64-bit sum or product as a double: the unsigned value for unsigned types (numpy's uint64 result). */
    static double unsignedAware(ElementType t, long v) {
        return t.isUnsigned() ? ElementCodec.longToDouble(ElementType.U64, v) : (double) v;
    }

    /** The product of all elements in double; integers: the wrapped 64-bit product, as numpy's, converted. */
    public static double product(ElementType t, MemorySegment s, StridedLayout l) {
        return t.isFloatingPoint() ? productAsDouble(t, s, l) : unsignedAware(t, productAsLong(t, s, l));
    }

    private static double productAsDouble(ElementType t, MemorySegment s, StridedLayout l) {
        double[] p = {1};
        double[] buf = new double[(int) Math.min(Blocks.SIZE, l.size())];
        Loops.rows(l, 1, (off, stride, n) -> p[0] *= productAsDouble(t, s, off, stride, n, buf));
        return p[0];
    }

    /** The wrapping 64-bit product of an integer layout's elements (unsigned types: the bits of the unsigned product). */
    public static long productAsLong(ElementType t, MemorySegment s, StridedLayout l) {
        long[] p = {1};
        long[] buf = new long[(int) Math.min(Blocks.SIZE, l.size())];
        Loops.rows(l, 1, (off, stride, n) -> p[0] *= productAsLong(t, s, off, stride, n, buf));
        return p[0];
    }

    /** numpy's var (ddof 0) of all elements, in double. */
    public static double variance(ElementType t, MemorySegment s, StridedLayout l) {
        double[] buf = new double[(int) Math.min(Blocks.SIZE, l.size())];
        BlockMath.Total sum = new BlockMath.Total();
        Loops.rows(l, 1, (off, stride, n) -> sum(t, s, off, stride, n, buf, sum));
        double mean = sum.value() / l.size();
        BlockMath.Total dev = new BlockMath.Total();
        Loops.rows(l, 1, (off, stride, n) -> squaredDeviations(t, s, off, stride, n, mean, buf, dev));
        return dev.value() / l.size();
    }

    /** The row-major position of the first minimum or maximum (floats: of the first NaN if any). */
    public static long arg(ElementType t, boolean max, MemorySegment s, StridedLayout l) {
        long[] found = {-1, 0};
        double[] bestD = {0};
        long[] bestL = {0};
        long flip = t.isUnsigned64() ? Long.MIN_VALUE : 0;
        Loops.rows(l, 1, (off, stride, n) -> {
            long pos = found[1];
            found[1] += n;
            if (found[0] >= 0 && t.isFloatingPoint() && bestD[0] != bestD[0]) {
                return;
            }
            long k = arg(t, max, s, off, stride, n);
            boolean take;
            if (t.isFloatingPoint()) {
                double v = ElementCodec.getDouble(t, s, off + k * stride);
                double b = bestD[0];
                take = found[0] < 0 || v != v || (max ? v > b : v < b);
                bestD[0] = take ? v : b;
            } else {
                long v = ElementCodec.getLong(t, s, off + k * stride);
                long b = bestL[0];
                take = found[0] < 0 || (max ? (v ^ flip) > (b ^ flip) : (v ^ flip) < (b ^ flip));
                bestL[0] = take ? v : b;
            }
            if (take) {
                found[0] = pos + k;
            }
        });
        return found[0];
    }
}
