package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops of {@link ScalarMaskKernels}' operations on contiguous rows (bool rows
 * contiguous, element rows contiguous or, for where's operands, of stride 0). Each does the
 * first {@code n & -64} elements of its row; the caller finishes the row with the scalar loop.
 * A method returning false did nothing: it has no loop for that type.
 */
interface SimdMaskKernels {
    boolean compareScalar(ElementType t, Cmp c, MemorySegment a, long ao, MemorySegment o, long oo, long n, double dv, long lv);

    boolean compare(ElementType t, Cmp c, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n);

    /** xs and ys are the operands' byte strides: the item size, or 0 for a repeated element. */
    boolean where(int size, MemorySegment m, long mo, MemorySegment x, long xo, long xs, MemorySegment y, long yo, long ys,
                  MemorySegment o, long oo, long n);

    void logical(Logic op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n);

    /** The number of nonzero bytes among the first {@code n & -64}. */
    long count(MemorySegment m, long off, long n);
}
