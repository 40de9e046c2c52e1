package dev.sharedarrays.internal;

import java.lang.foreign.MemorySegment;

/**
 * Optional SIMD loops for contiguous rows (stride == item size). Each method returns false, or
 * NaN/Long.MIN_VALUE sentinels are never used: callers ask {@link #handles} first and fall back
 * to {@link ScalarKernels} otherwise.
 */
interface FastKernels {
    /** True if this implementation has a loop for the dtype code and op ({@link Kernels#SUM} etc. for reductions). */
    boolean handles(int code, int op);

    void scalar(int code, int op, MemorySegment s, long off, long n, double dv, long lv);

    void binary(int code, int op, MemorySegment a, long ao, MemorySegment b, long bo, long n);

    double reduceFloat(int code, int op, MemorySegment s, long off, long n);

    long reduceInt(int code, int op, MemorySegment s, long off, long n);
}
