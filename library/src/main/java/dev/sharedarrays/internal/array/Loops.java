package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Kernels;
import dev.sharedarrays.internal.kernel.Op;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the row kernels ({@link Kernels}) over whole strided layouts: splits a layout into rows
 * after merging axes that are adjacent in memory, so a contiguous array is one row. Offsets
 * handed to the kernels are in bytes.
 */
public final class Loops {
    /** Bytes of each operand per block of the fused loops: three operands' blocks stay within L2. */
    private static final long BLOCK_BYTES = 16 << 10;

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
        rows(la, lb, t.itemSize(), (ao, as, bo, bs, n) -> row(t, op, a, ao, as, b, bo, bs, n));
    }

    /** a = a (op) b over one row; an operand that repeats one element (stride 0) runs the scalar or fill loop. */
    private static void row(ElementType t, Op op, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, long n) {
        if (bs == 0 && n > 1) {
            long i = bo / t.itemSize();
            double dv = ElementCodec.getDouble(t, b, i);
            long lv = ElementCodec.getLong(t, b, i);
            if (op == Op.ASSIGN) {
                Kernels.fill(t, a, ao, as, n, dv, lv);
            } else {
                Kernels.scalar(t, op, a, ao, as, n, dv, lv);
            }
        } else {
            Kernels.binary(t, op, a, ao, as, b, bo, bs, n);
        }
    }

    /**
     * d = a (op) b, layouts of one shape (a and b may repeat elements). d is fresh memory that no
     * operand overlaps; it is copied from a and combined with b a block at a time, so each block
     * is still in cache for the second step and d's memory is crossed once, as by a three-operand loop.
     */
    public static void binaryInto(ElementType t, Op op, MemorySegment d, StridedLayout ld, MemorySegment a, StridedLayout la,
                                  MemorySegment b, StridedLayout lb) {
        blocks(new StridedLayout[] {ld, la, lb}, t.itemSize(), (o, s, n) -> {
            row(t, Op.ASSIGN, d, o[0], s[0], a, o[1], s[1], n);
            row(t, op, d, o[0], s[0], b, o[2], s[2], n);
        });
    }

    /** d = a (op) value, as {@link #binaryInto}. */
    public static void scalarInto(ElementType t, Op op, MemorySegment d, StridedLayout ld, MemorySegment a, StridedLayout la,
                                  double dv, long lv) {
        blocks(new StridedLayout[] {ld, la}, t.itemSize(), (o, s, n) -> {
            row(t, Op.ASSIGN, d, o[0], s[0], a, o[1], s[1], n);
            Kernels.scalar(t, op, d, o[0], s[0], n, dv, lv);
        });
    }

    /** d = value (op) a, as {@link #binaryInto}. */
    public static void reflectedInto(ElementType t, Op op, MemorySegment d, StridedLayout ld, double dv, long lv,
                                     MemorySegment a, StridedLayout la) {
        blocks(new StridedLayout[] {ld, la}, t.itemSize(), (o, s, n) -> {
            Kernels.fill(t, d, o[0], s[0], n, dv, lv);
            row(t, op, d, o[0], s[0], a, o[1], s[1], n);
        });
    }

    /**
     * Visits layouts of one shape in step, a block of at most {@link #BLOCK_BYTES} of each at a time;
     * big contiguous ones in parts on several threads ({@link Parallel}) when that is asked for.
     */
    private static void blocks(StridedLayout[] layouts, int itemSize, ZipRows.Visitor v) {
        Parallel.split(layouts, part -> blocksOf(part, itemSize, v));
    }

    private static void blocksOf(StridedLayout[] layouts, int itemSize, ZipRows.Visitor v) {
        int[] sizes = new int[layouts.length];
        Arrays.fill(sizes, itemSize);
        long block = BLOCK_BYTES / itemSize;
        long[] o = new long[layouts.length];
        ZipRows.rows(layouts, sizes, (off, stride, n) -> {
            for (long i = 0; i < n; i += block) {
                for (int j = 0; j < o.length; j++) {
                    o[j] = off[j] + i * stride[j];
                }
                v.row(o, stride, Math.min(block, n - i));
            }
        });
    }

    /** SUM, MIN or MAX of a float layout. */
    public static double reduceFloat(ElementType t, Op op, MemorySegment s, StridedLayout l) {
        List<Double> parts = Parallel.map(new StridedLayout[] {l}, p -> reduceFloatPart(t, op, s, p[0]));
        double acc = parts.get(0);
        for (int i = 1; i < parts.size(); i++) {
            acc = op == Op.SUM ? acc + parts.get(i) : op == Op.MIN ? Math.min(acc, parts.get(i)) : Math.max(acc, parts.get(i));
        }
        return acc;
    }

    private static double reduceFloatPart(ElementType t, Op op, MemorySegment s, StridedLayout l) {
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
        List<Long> parts = Parallel.map(new StridedLayout[] {l}, p -> reduceIntPart(t, op, s, p[0]));
        long acc = parts.get(0);
        for (int i = 1; i < parts.size(); i++) {
            acc = combineInt(t, op, acc, parts.get(i));
        }
        return acc;
    }

    private static long reduceIntPart(ElementType t, Op op, MemorySegment s, StridedLayout l) {
        long[] acc = {0};
        boolean[] first = {true};
        rows(l, t.itemSize(), (off, stride, n) -> {
            long r = Kernels.reduceInt(t, op, s, off, stride, n);
            acc[0] = first[0] && op != Op.SUM ? r : combineInt(t, op, acc[0], r);
            first[0] = false;
        });
        return acc[0];
    }

    /** acc and r combined by op: the wrapping sum, or the smaller or larger (U64 compared unsigned). */
    private static long combineInt(ElementType t, Op op, long acc, long r) {
        if (op == Op.SUM) {
            return acc + r;
        }
        if (t.isUnsigned64()) {
            return (op == Op.MIN) == (Long.compareUnsigned(r, acc) < 0) ? r : acc;
        }
        return op == Op.MIN ? Math.min(acc, r) : Math.max(acc, r);
    }

    /** True if an integer layout holds a zero. */
    public static boolean anyZero(ElementType t, MemorySegment s, StridedLayout l) {
        boolean[] found = {false};
        rows(l, t.itemSize(), (off, stride, n) -> found[0] |= !found[0] && Kernels.anyZero(t, s, off, stride, n));
        return found[0];
    }
}
