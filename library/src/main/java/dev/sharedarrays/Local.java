package dev.sharedarrays;

import dev.sharedarrays.internal.backend.Backends;

/**
 * Process-local arrays: the results of out-of-place operations, per-axis reductions, astype,
 * copy() and the factories. They live in anonymous memory that the garbage collector frees
 * once nothing reaches the array or its views; no file; close() frees at once (optional).
 */
final class Local {
    private Local() {
    }

    /** A new process-local array whose elements the caller writes, every one of them. */
    static <T extends DType<T>> SharedNDArray<T> empty(T dtype, long[] shape) {
        return new SharedNDArray<>(Backends.createLocal(dtype, shape, false), dtype);
    }

    /** A new zero-filled process-local array. */
    static <T extends DType<T>> SharedNDArray<T> zeros(T dtype, long[] shape) {
        return new SharedNDArray<>(Backends.createLocal(dtype, shape, true), dtype);
    }
}
