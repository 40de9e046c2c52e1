package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.Cmp;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Logic;
import dev.sharedarrays.internal.kernel.MaskKernels;
import java.lang.foreign.MemorySegment;

/**
 * Comparisons, logic, where and masked copies over whole layouts, with numpy's rules for
 * scalars: a float scalar against an integer array compares as float64 (exact for types of up
 * to 32 bits; I64 and U64 elements are rounded to double, as numpy does), an integer scalar
 * compares exactly however far outside the element type's range, and F32 arrays compare with
 * the scalar rounded to float32. NaN compares false except with NE. Results are BOOL layouts of
 * the operands' shape; operand layouts are already broadcast to it. The caller holds the locks.
 */
public final class MaskOps {
    private MaskOps() {
    }

    /** out = a (c) s for a float scalar. */
    public static void compareScalar(ElementType t, Cmp c, MemorySegment a, StridedLayout la, MemorySegment out, StridedLayout lo,
                                     double s) {
        if (t.isFloatingPoint()) {
            runScalar(t, c, a, la, out, lo, s, 0);
            return;
        }
        if (Double.isNaN(s)) {
            constant(out, lo, c == Cmp.NE);
            return;
        }
        if (t.itemSize() == 8 && Math.abs(s) >= 0x1p53) {
            // beyond 2^53 numpy compares I64 and U64 elements rounded to double: so do we, element by element
            compareRounded(t, c, a, la, out, lo, s);
            return;
        }
        // an integer x compares with s as with floor(s) or ceil(s); clamping keeps s a long and
        // changes nothing (below 2^53 for 64-bit types, far outside the range of the others)
        double clamped = Math.max(-0x1p62, Math.min(0x1p62, s));
        long floor = (long) Math.floor(clamped);
        long ceil = (long) Math.ceil(clamped);
        switch (c) {
            case GT, LE -> compareScalar(t, c, a, la, out, lo, floor);
            case GE, LT -> compareScalar(t, c, a, la, out, lo, ceil);
            case EQ, NE -> {
                if (floor == ceil) {
                    compareScalar(t, c, a, la, out, lo, floor);
                } else {
                    constant(out, lo, c == Cmp.NE);
                }
            }
        }
    }

    /** out = a (c) s for an integer scalar. */
    public static void compareScalar(ElementType t, Cmp c, MemorySegment a, StridedLayout la, MemorySegment out, StridedLayout lo,
                                     long s) {
        if (t.isFloatingPoint()) {
            runScalar(t, c, a, la, out, lo, (double) s, 0);
        } else if (s < t.minValue()) {
            constant(out, lo, c == Cmp.GT || c == Cmp.GE || c == Cmp.NE);
        } else if (s > t.maxValue()) {
            constant(out, lo, c == Cmp.LT || c == Cmp.LE || c == Cmp.NE);
        } else {
            runScalar(t, c, a, la, out, lo, 0, s);
        }
    }

    private static void runScalar(ElementType t, Cmp c, MemorySegment a, StridedLayout la, MemorySegment out, StridedLayout lo,
                                  double dv, long lv) {
        // out is a new array: big contiguous operands may go in parts on several threads (Parallel)
        Parallel.split(new StridedLayout[] {la, lo}, p -> ZipRows.rows(p, new int[] {t.itemSize(), 1},
                (off, stride, n) -> MaskKernels.compareScalar(t, c, a, off[0], stride[0], out, off[1], stride[1], n, dv, lv)));
    }

    private static void constant(MemorySegment out, StridedLayout lo, boolean value) {
        Loops.fill(ElementType.BOOL, out, lo, value ? 1 : 0, value ? 1 : 0);
    }

    private static void compareRounded(ElementType t, Cmp c, MemorySegment a, StridedLayout la, MemorySegment out, StridedLayout lo,
                                       double s) {
        int size = t.itemSize();
        ZipRows.rows(new StridedLayout[] {la, lo}, new int[] {size, 1}, (off, stride, n) -> {
            for (long i = 0, x = off[0], y = off[1]; i < n; i++, x += stride[0], y += stride[1]) {
                boolean r = c.test(Double.compare(ElementCodec.getDouble(t, a, x / size), s));
                ElementCodec.setLong(ElementType.BOOL, out, y, r ? 1 : 0);
            }
        });
    }

    /** out = a (c) b, two arrays of type t. */
    public static void compare(ElementType t, Cmp c, MemorySegment a, StridedLayout la, MemorySegment b, StridedLayout lb,
                               MemorySegment out, StridedLayout lo) {
        int size = t.itemSize();
        Parallel.split(new StridedLayout[] {la, lb, lo}, p -> ZipRows.rows(p, new int[] {size, size, 1}, (off, stride, n) ->
                MaskKernels.compare(t, c, a, off[0], stride[0], b, off[1], stride[1], out, off[2], stride[2], n)));
    }

    /** out = a (op) b of two BOOL layouts; NOT reads only a (pass a again as b). */
    public static void logical(Logic op, MemorySegment a, StridedLayout la, MemorySegment b, StridedLayout lb, MemorySegment out,
                               StridedLayout lo) {
        ZipRows.rows(new StridedLayout[] {la, lb, lo}, new int[] {1, 1, 1}, (off, stride, n) ->
                MaskKernels.logical(op, a, off[0], stride[0], b, off[1], stride[1], out, off[2], stride[2], n));
    }

    /** out = mask ? x : y, elements of size bytes. */
    public static void where(int size, MemorySegment m, StridedLayout lm, MemorySegment x, StridedLayout lx, MemorySegment y,
                             StridedLayout ly, MemorySegment out, StridedLayout lo) {
        ZipRows.rows(new StridedLayout[] {lm, lx, ly, lo}, new int[] {1, size, size, size}, (off, stride, n) ->
                MaskKernels.where(size, m, off[0], stride[0], x, off[1], stride[1], y, off[2], stride[2], out, off[3], stride[3], n));
    }

    /** The number of true elements of a BOOL layout. */
    public static long count(MemorySegment m, StridedLayout lm) {
        long[] total = {0};
        Loops.rows(lm, 1, (off, stride, n) -> total[0] += MaskKernels.count(m, off, stride, n));
        return total[0];
    }

    /**
     * Copies the elements of a (size bytes each) whose mask element is true into out, contiguous
     * and in row-major order, at most {@code count} of them; returns how many.
     */
    public static long compress(int size, MemorySegment a, StridedLayout la, MemorySegment m, StridedLayout lm, MemorySegment out,
                                long count) {
        long[] k = {0};
        ZipRows.rows(new StridedLayout[] {la, lm}, new int[] {size, 1}, (off, stride, n) ->
                k[0] += MaskKernels.compress(size, a, off[0], stride[0], m, off[1], stride[1], out, k[0] * size, n, count - k[0]));
        return k[0];
    }

    /**
     * Stores the contiguous values v, in order, into the elements of a whose mask element is
     * true, at most {@code count} of them; returns how many it stored.
     */
    public static long expand(int size, MemorySegment a, StridedLayout la, MemorySegment m, StridedLayout lm, MemorySegment v,
                              long count) {
        long[] k = {0};
        ZipRows.rows(new StridedLayout[] {la, lm}, new int[] {size, 1}, (off, stride, n) ->
                k[0] += MaskKernels.expand(size, a, off[0], stride[0], m, off[1], stride[1], v, k[0] * size, n, count - k[0]));
        return k[0];
    }
}
