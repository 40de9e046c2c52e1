package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops of the element-wise math functions for contiguous rows (both strides ==
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
}
