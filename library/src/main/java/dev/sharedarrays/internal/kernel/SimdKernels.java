package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops for contiguous rows (stride == item size), and sums of rows a few elements
 * apart. Callers ask {@link #handles} or {@link #sumsStrided} first and use {@link ScalarKernels}
 * for anything it does not handle; each method finishes its row itself (the tail past the last whole vector goes to the scalar loop).
 */
interface SimdKernels {
    /** True if this implementation has a loop for op on rows of t. */
    boolean handles(ElementType t, Op op);

    void scalar(ElementType t, Op op, MemorySegment s, long off, long n, double dv, long lv);

    void binary(ElementType t, Op op, MemorySegment a, long ao, MemorySegment b, long bo, long n);

    double reduceFloat(ElementType t, Op op, MemorySegment s, long off, long n);

    long reduceInt(ElementType t, Op op, MemorySegment s, long off, long n);

    /** True if {@link #sumStrided} sums rows of t whose elements are stride bytes apart. */
    boolean sumsStrided(ElementType t, long stride);

    /** The SUM of a float row of t with elements stride bytes apart (a stride {@link #sumsStrided} takes). */
    double sumStrided(ElementType t, MemorySegment s, long off, long stride, long n);
}
