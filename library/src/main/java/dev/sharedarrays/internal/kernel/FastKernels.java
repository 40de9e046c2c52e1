package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops for contiguous rows (stride == item size). Callers ask {@link #handles}
 * first and use {@link ScalarKernels} for anything it does not handle; each method finishes its
 * row itself (the tail past the last whole vector goes to the scalar loop).
 */
interface FastKernels {
    /** True if this implementation has a loop for op on rows of t. */
    boolean handles(ElementType t, Op op);

    void scalar(ElementType t, Op op, MemorySegment s, long off, long n, double dv, long lv);

    void binary(ElementType t, Op op, MemorySegment a, long ao, MemorySegment b, long bo, long n);

    double reduceFloat(ElementType t, Op op, MemorySegment s, long off, long n);

    long reduceInt(ElementType t, Op op, MemorySegment s, long off, long n);
}
