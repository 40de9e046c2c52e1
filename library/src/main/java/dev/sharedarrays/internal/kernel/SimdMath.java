package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops of the element-wise math functions (and of float casts and per-axis
 * F64 reductions) for contiguous rows (both strides ==
 * item size). Callers ask {@link #handles} first; each call processes whole vectors only and
 * returns how many elements it did, and the caller finishes the row with {@link ScalarMath}.
 */
interface SimdMath {
    /** True if this implementation has a loop for op on rows of t. */
    boolean handles(ElementType t, MathOp op);

    /**
     * d[i] = op(s[i]) for the leading whole vectors of n elements (p, q: as {@link MathKernels#unary});
     * returns how many it did.
     */
    long unary(ElementType t, MathOp op, MemorySegment s, long so, MemorySegment d, long dOff, long n, double p, double q);

    /** d[i] = a[i] ** b[i] for the leading whole vectors of n elements; returns how many it did. */
    long pow(ElementType t, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n);

    /** d[i] = s[i] converted from F64 to F32 or back, for the leading whole vectors of n elements; returns how many it did. */
    long convert(ElementType from, ElementType to, MemorySegment s, long so, MemorySegment d, long dOff, long n);

    /**
     * acc[j] = acc[j] (op) row i's element j for rows 1 to rows - 1 of F64 rows rowBytes apart from
     * byte offset first (op: 0 sum, four rows at a time as ((r0 + r1) + (r2 + r3)); 1 min; 2 max,
     * as Math.min/max), for the leading whole vectors of n columns; returns how many columns it did.
     */
    int combineRowsF64(int op, double[] acc, MemorySegment s, long first, long rowBytes, long rows, int n);
}
