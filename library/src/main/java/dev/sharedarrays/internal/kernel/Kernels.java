package dev.sharedarrays.internal.kernel;

import dev.sharedarrays.internal.array.Layout;

import java.lang.foreign.MemorySegment;

/**
 * Runs element loops over whole layouts: splits a layout into rows (after merging axes that
 * are adjacent in memory, so a contiguous array is one row) and hands each row to the SIMD loop
 * when there is one for it ({@link VectorKernels}, with {@code --add-modules
 * jdk.incubator.vector}), else to {@link ScalarKernels}. Offsets here are in bytes.
 */
public final class Kernels {
    public static final int ADD = 0;
    public static final int SUB = 1;
    public static final int MUL = 2;
    public static final int DIV = 3;
    public static final int ASSIGN = 4;
    public static final int SUM = 5;
    public static final int MIN = 6;
    public static final int MAX = 7;

    private static final FastKernels VECTOR = loadVector();
    private static volatile boolean useVector = VECTOR != null;

    private Kernels() {
    }

    private static FastKernels loadVector() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return null;
        }
        try {
            return (FastKernels) Class.forName("dev.sharedarrays.internal.kernel.VectorKernels").getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    /** Tests switch the SIMD loops off to check the scalar ones; returns the previous setting. */
    public static boolean useVector(boolean on) {
        boolean before = useVector;
        useVector = on && VECTOR != null;
        return before;
    }

    static int itemSize(int code) {
        return switch (code) {
            case 1, 3, 7 -> 8;
            case 2, 4, 8 -> 4;
            case 5, 9 -> 2;
            default -> 1;
        };
    }

    private static FastKernels fast(int code, int op, long stride) {
        return useVector && stride == itemSize(code) && VECTOR.handles(code, op) ? VECTOR : null;
    }

    /** Visits the rows of one layout: (byte offset, byte stride, count). */
    interface RowVisitor {
        void row(long off, long stride, long n);
    }

    /** Visits the rows of two layouts of the same shape, in step. */
    interface PairVisitor {
        void row(long ao, long as, long bo, long bs, long n);
    }

    static void rows(Layout layout, int itemSize, RowVisitor v) {
        Layout c = layout.coalesce();
        long[] shape = c.shape();
        long[] strides = c.strides();
        int last = shape.length - 1;
        long n = shape[last];
        long stride = strides[last] * itemSize;
        long[] idx = new long[last];
        long off = c.offset() * itemSize;
        while (true) {
            v.row(off, stride, n);
            int k = last - 1;
            while (k >= 0) {
                idx[k]++;
                off += strides[k] * itemSize;
                if (idx[k] < shape[k]) {
                    break;
                }
                off -= shape[k] * strides[k] * itemSize;
                idx[k] = 0;
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }

    static void rows(Layout a, Layout b, int itemSize, PairVisitor v) {
        // merge axes only where both layouts allow it
        long[] sa = a.shape();
        int nd = sa.length;
        long[] shape = new long[nd];
        long[] as = new long[nd];
        long[] bs = new long[nd];
        int m = 0;
        for (int i = 0; i < nd; i++) {
            long d = sa[i];
            if (d == 1) {
                continue;
            }
            long x = a.strides()[i];
            long y = b.strides()[i];
            if (m > 0 && as[m - 1] == x * d && bs[m - 1] == y * d) {
                shape[m - 1] *= d;
                as[m - 1] = x;
                bs[m - 1] = y;
            } else {
                shape[m] = d;
                as[m] = x;
                bs[m++] = y;
            }
        }
        if (m == 0) {
            v.row(a.offset() * itemSize, itemSize, b.offset() * itemSize, itemSize, 1);
            return;
        }
        int last = m - 1;
        long[] idx = new long[last];
        long ao = a.offset() * itemSize;
        long bo = b.offset() * itemSize;
        while (true) {
            v.row(ao, as[last] * itemSize, bo, bs[last] * itemSize, shape[last]);
            int k = last - 1;
            while (k >= 0) {
                idx[k]++;
                ao += as[k] * itemSize;
                bo += bs[k] * itemSize;
                if (idx[k] < shape[k]) {
                    break;
                }
                ao -= shape[k] * as[k] * itemSize;
                bo -= shape[k] * bs[k] * itemSize;
                idx[k] = 0;
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }

    public static void fill(int code, MemorySegment s, Layout l, double dv, long lv) {
        rows(l, itemSize(code), (off, stride, n) -> ScalarKernels.fill(code, s, off, stride, n, dv, lv));
    }

    public static void scalar(int code, int op, MemorySegment s, Layout l, double dv, long lv) {
        rows(l, itemSize(code), (off, stride, n) -> {
            FastKernels f = fast(code, op, stride);
            if (f != null) {
                f.scalar(code, op, s, off, n, dv, lv);
            } else {
                ScalarKernels.scalar(code, op, s, off, stride, n, dv, lv);
            }
        });
    }

    public static void binary(int code, int op, MemorySegment a, Layout la, MemorySegment b, Layout lb) {
        rows(la, lb, itemSize(code), (ao, as, bo, bs, n) -> {
            FastKernels f = as == bs ? fast(code, op, as) : null;
            if (f != null) {
                f.binary(code, op, a, ao, b, bo, n);
            } else {
                ScalarKernels.binary(code, op, a, ao, as, b, bo, bs, n);
            }
        });
    }

    /** SUM, MIN or MAX of a float layout. */
    public static double reduceFloat(int code, int op, MemorySegment s, Layout l) {
        double[] acc = {op == SUM ? 0 : Double.NaN};
        boolean[] first = {true};
        rows(l, itemSize(code), (off, stride, n) -> {
            FastKernels f = fast(code, op, stride);
            double r;
            if (f != null) {
                r = f.reduceFloat(code, op, s, off, n);
            } else {
                r = switch (op) {
                    case SUM -> ScalarKernels.sumFloat(code, s, off, stride, n);
                    case MIN -> ScalarKernels.minFloat(code, s, off, stride, n);
                    default -> ScalarKernels.maxFloat(code, s, off, stride, n);
                };
            }
            if (op == SUM) {
                acc[0] += r;
            } else if (first[0]) {
                acc[0] = r;
            } else {
                acc[0] = op == MIN ? Math.min(acc[0], r) : Math.max(acc[0], r);
            }
            first[0] = false;
        });
        return acc[0];
    }

    /** SUM (wrapping 64-bit), MIN or MAX (U64 compared unsigned) of an integer layout. */
    public static long reduceInt(int code, int op, MemorySegment s, Layout l) {
        long[] acc = {0};
        boolean[] first = {true};
        boolean unsigned64 = code == 7;
        rows(l, itemSize(code), (off, stride, n) -> {
            FastKernels f = fast(code, op, stride);
            long r;
            if (f != null) {
                r = f.reduceInt(code, op, s, off, n);
            } else {
                r = switch (op) {
                    case SUM -> ScalarKernels.sumInt(code, s, off, stride, n);
                    case MIN -> ScalarKernels.minInt(code, s, off, stride, n);
                    default -> ScalarKernels.maxInt(code, s, off, stride, n);
                };
            }
            if (op == SUM) {
                acc[0] += r;
            } else if (first[0]) {
                acc[0] = r;
            } else if (unsigned64) {
                acc[0] = (op == MIN) == (Long.compareUnsigned(r, acc[0]) < 0) ? r : acc[0];
            } else {
                acc[0] = op == MIN ? Math.min(acc[0], r) : Math.max(acc[0], r);
            }
            first[0] = false;
        });
        return acc[0];
    }

    /** True if an integer layout holds a zero. */
    public static boolean anyZero(int code, MemorySegment s, Layout l) {
        boolean[] found = {false};
        rows(l, itemSize(code), (off, stride, n) -> found[0] |= !found[0] && ScalarKernels.anyZero(code, s, off, stride, n));
        return found[0];
    }
}
