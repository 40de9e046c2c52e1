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
            int size = t.itemSize();
            ZipRows.rows(new StridedLayout[] {x.layout, y.layout, lo}, new int[] {size, size, size}, (off, st, n) ->
                    MathKernels.pow(t, x.mem, off[0], st[0], y.mem, off[1], st[1], o, off[2], st[2], n));
        }
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
}
