package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.MathKernels;
import dev.sharedarrays.internal.kernel.MathOp;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Runs the element-wise math kernels ({@link MathKernels}) over whole layouts: the inputs'
 * layouts already have the output's shape (broadcast by the caller). An input that shares
 * memory with the output in another layout is read through a temporary copy first, as numpy
 * does; the output itself as input (same layout) is computed in place. The caller holds the locks.
 */
public final class ElementMath {
    private ElementMath() {
    }

    /** An input: its memory, its layout in the output's shape, and whether it is a view of the output's array. */
    public record In(MemorySegment mem, StridedLayout layout, boolean sameArray) {
    }

    /** out = op(a) for a float type; p is POW's exponent or CLIP's lower bound, q CLIP's upper bound. */
    public static void unary(ElementType t, MathOp op, In a, MemorySegment o, StridedLayout lo, double p, double q) {
        try (Arena arena = Arena.ofConfined()) {
            In x = separate(t, a, lo, arena);
            Loops.rows(x.layout, lo, t.itemSize(),
                    (ao, as, oo, os, n) -> MathKernels.unary(t, op, x.mem, ao, as, o, oo, os, n, p, q));
        }
    }

    /** out = op(a) for an integer type: ABS, SIGN, FLOOR, CEIL or CLIP to [min, max]. */
    public static void unaryInt(ElementType t, MathOp op, In a, MemorySegment o, StridedLayout lo, long min, long max) {
        try (Arena arena = Arena.ofConfined()) {
            In x = separate(t, a, lo, arena);
            Loops.rows(x.layout, lo, t.itemSize(),
                    (ao, as, oo, os, n) -> MathKernels.unaryInt(t, op, x.mem, ao, as, o, oo, os, n, min, max));
        }
    }

    /** out = a ** b for a float type. */
    public static void pow(ElementType t, In a, In b, MemorySegment o, StridedLayout lo) {
        try (Arena arena = Arena.ofConfined()) {
            In x = separate(t, a, lo, arena);
            In y = separate(t, b, lo, arena);
            rows(x.layout, y.layout, lo, t.itemSize(), (ao, as, bo, bs, oo, os, n) ->
                    MathKernels.pow(t, x.mem, ao, as, y.mem, bo, bs, o, oo, os, n));
        }
    }

    /**
     * True if an array of shape {@code from} broadcasts to {@code to} by numpy's rule (aligned
     * at the last axis, each dimension equal or 1; {@code to} is never stretched).
     */
    public static boolean broadcastsTo(long[] from, long[] to) {
        if (from.length > to.length) {
            return false;
        }
        for (int i = 1; i <= from.length; i++) {
            long d = from[from.length - i];
            if (d != 1 && d != to[to.length - i]) {
                return false;
            }
        }
        return true;
    }

    // TODO(merge): the lead's StridedLayout.broadcastTo replaces this stand-in
    public static StridedLayout broadcastTo(StridedLayout l, long[] shape) {
        long[] st = new long[shape.length];
        int extra = shape.length - l.ndim();
        for (int i = 0; i < l.ndim(); i++) {
            st[extra + i] = l.shape()[i] == shape[extra + i] ? l.strides()[i] : 0;
        }
        return new StridedLayout(l.offset(), shape.clone(), st);
    }

    /** The input itself, or a contiguous copy of it if it overlaps the output in another layout. */
    private static In separate(ElementType t, In a, StridedLayout lo, Arena arena) {
        if (!a.sameArray || a.layout.equals(lo) || !overlaps(a.layout, lo)) {
            return a;
        }
        StridedLayout lt = StridedLayout.contiguous(a.layout.shape());
        MemorySegment tmp = arena.allocate(lt.size() * t.itemSize(), 64);
        Loops.binary(t, Op.ASSIGN, tmp, lt, a.mem, a.layout);
        return new In(tmp, lt, false);
    }

    private static boolean overlaps(StridedLayout x, StridedLayout y) {
        long[] ex = x.extent();
        long[] ey = y.extent();
        return ex[0] <= ey[1] && ey[0] <= ex[1];
    }

    /** Visits the rows of three layouts of the same shape, in step. */
    interface TripleVisitor {
        void row(long ao, long as, long bo, long bs, long oo, long os, long n);
    }

    /** Loops' pair iteration for three layouts: merges axes where all three allow it. */
    static void rows(StridedLayout a, StridedLayout b, StridedLayout c, int itemSize, TripleVisitor v) {
        long[] shape0 = c.shape();
        int nd = shape0.length;
        long[] shape = new long[nd];
        long[][] st = new long[3][nd];
        StridedLayout[] ls = {a, b, c};
        int m = 0;
        for (int i = 0; i < nd; i++) {
            long d = shape0[i];
            if (d == 1) {
                continue;
            }
            boolean merge = m > 0;
            for (int k = 0; k < 3 && merge; k++) {
                merge = st[k][m - 1] == ls[k].strides()[i] * d;
            }
            if (merge) {
                shape[m - 1] *= d;
            } else {
                shape[m++] = d;
            }
            for (int k = 0; k < 3; k++) {
                st[k][m - 1] = ls[k].strides()[i];
            }
        }
        long[] off = {a.offset() * itemSize, b.offset() * itemSize, c.offset() * itemSize};
        if (m == 0) {
            v.row(off[0], itemSize, off[1], itemSize, off[2], itemSize, 1);
            return;
        }
        int last = m - 1;
        long[] idx = new long[last];
        while (true) {
            v.row(off[0], st[0][last] * itemSize, off[1], st[1][last] * itemSize, off[2], st[2][last] * itemSize, shape[last]);
            int k = last - 1;
            while (k >= 0) {
                idx[k]++;
                for (int j = 0; j < 3; j++) {
                    off[j] += st[j][k] * itemSize;
                }
                if (idx[k] < shape[k]) {
                    break;
                }
                for (int j = 0; j < 3; j++) {
                    off[j] -= shape[k] * st[j][k] * itemSize;
                }
                idx[k] = 0;
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }
}
