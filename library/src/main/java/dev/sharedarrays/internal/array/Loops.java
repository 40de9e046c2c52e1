package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Kernels;
import dev.sharedarrays.internal.kernel.Op;

import java.lang.foreign.MemorySegment;

/**
 * Runs the row kernels ({@link Kernels}) over whole strided layouts: splits a layout into rows
 * after merging axes that are adjacent in memory, so a contiguous array is one row. Offsets
 * handed to the kernels are in bytes.
 */
public final class Loops {
    private Loops() {
    }

    /** Visits the rows of one layout: (byte offset, byte stride, count). */
    interface RowVisitor {
        void row(long off, long stride, long n);
    }

    /** Visits the rows of two layouts of the same shape, in step. */
    interface PairVisitor {
        void row(long ao, long as, long bo, long bs, long n);
    }

    static void rows(StridedLayout layout, int itemSize, RowVisitor v) {
        StridedLayout c = layout.coalesce();
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

    static void rows(StridedLayout a, StridedLayout b, int itemSize, PairVisitor v) {
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

    public static void fill(ElementType t, MemorySegment s, StridedLayout l, double dv, long lv) {
        rows(l, t.itemSize(), (off, stride, n) -> Kernels.fill(t, s, off, stride, n, dv, lv));
    }

    public static void scalar(ElementType t, Op op, MemorySegment s, StridedLayout l, double dv, long lv) {
        rows(l, t.itemSize(), (off, stride, n) -> Kernels.scalar(t, op, s, off, stride, n, dv, lv));
    }

    public static void binary(ElementType t, Op op, MemorySegment a, StridedLayout la, MemorySegment b, StridedLayout lb) {
        rows(la, lb, t.itemSize(), (ao, as, bo, bs, n) -> {
            if (bs == 0 && n > 1 && op != Op.ASSIGN) {
                // a broadcast operand repeats one element along the row: the scalar loop is the fast one
                long i = bo / t.itemSize();
                Kernels.scalar(t, op, a, ao, as, n, ElementCodec.getDouble(t, b, i), ElementCodec.getLong(t, b, i));
            } else if (bs == 0 && n > 1) {
                long i = bo / t.itemSize();
                Kernels.fill(t, a, ao, as, n, ElementCodec.getDouble(t, b, i), ElementCodec.getLong(t, b, i));
            } else {
                Kernels.binary(t, op, a, ao, as, b, bo, bs, n);
            }
        });
    }

    /** SUM, MIN or MAX of a float layout. */
    public static double reduceFloat(ElementType t, Op op, MemorySegment s, StridedLayout l) {
        double[] acc = {op == Op.SUM ? 0 : Double.NaN};
        boolean[] first = {true};
        rows(l, t.itemSize(), (off, stride, n) -> {
            double r = Kernels.reduceFloat(t, op, s, off, stride, n);
            if (op == Op.SUM) {
                acc[0] += r;
            } else if (first[0]) {
                acc[0] = r;
            } else {
                acc[0] = op == Op.MIN ? Math.min(acc[0], r) : Math.max(acc[0], r);
            }
            first[0] = false;
        });
        return acc[0];
    }

    /** SUM (wrapping 64-bit), MIN or MAX (U64 compared unsigned) of an integer layout. */
    public static long reduceInt(ElementType t, Op op, MemorySegment s, StridedLayout l) {
        long[] acc = {0};
        boolean[] first = {true};
        boolean unsigned64 = t.isUnsigned64();
        rows(l, t.itemSize(), (off, stride, n) -> {
            long r = Kernels.reduceInt(t, op, s, off, stride, n);
            if (op == Op.SUM) {
                acc[0] += r;
            } else if (first[0]) {
                acc[0] = r;
            } else if (unsigned64) {
                acc[0] = (op == Op.MIN) == (Long.compareUnsigned(r, acc[0]) < 0) ? r : acc[0];
            } else {
                acc[0] = op == Op.MIN ? Math.min(acc[0], r) : Math.max(acc[0], r);
            }
            first[0] = false;
        });
        return acc[0];
    }

    /** True if an integer layout holds a zero. */
    public static boolean anyZero(ElementType t, MemorySegment s, StridedLayout l) {
        boolean[] found = {false};
        rows(l, t.itemSize(), (off, stride, n) -> found[0] |= !found[0] && Kernels.anyZero(t, s, off, stride, n));
        return found[0];
    }
}
