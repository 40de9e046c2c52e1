package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.WhereOps;

/**
 * numpy's {@code where(mask, x, y)}: a new process-local array that holds x's element where the
 * {@link Bool} mask is true and y's where it is false. x and y are arrays of one dtype or
 * scalars; the mask and the arrays broadcast by numpy's rules. A scalar takes the other
 * operand's dtype: it must fit an integer type (a fractional one would make numpy's result
 * float64: convert the array first). The operands are read under their read locks (taken in the
 * order of array id). Kotlin: {@code where(mask, x, y)}. Masks come from comparisons
 * ({@link Comparisons}); masks index arrays through {@link Masking}.
 */
public final class Masks {
    private Masks() {
    }

    /**
     * x's element where mask is true, y's where it is false.
     *
     * @throws DTypeMismatchException if the mask is not Bool or x and y differ in dtype
     * @throws ShapeMismatchException if the shapes do not broadcast
     */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, SharedNDArray<T> y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x.core(), y.core()));
    }

    /** x's element where mask is true, the scalar y where it is false; as {@link #where(SharedNDArray, SharedNDArray, SharedNDArray)}. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, double y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x.core(), y));
    }

    /** The scalar x where mask is true, y's element where it is false. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, double x, SharedNDArray<T> y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x, y.core()));
    }

    /**
     * x's element where mask is true, the integer scalar y where it is false.
     *
     * @throws IllegalArgumentException if y is out of range for x's integer type
     */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, long y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x.core(), y));
    }

    /** The integer scalar x where mask is true, y's element where it is false. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, long x, SharedNDArray<T> y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x, y.core()));
    }

    /** An F64 array of the mask's shape: x where it is true, y where it is false. */
    public static SharedNDArray<F64> where(SharedNDArray<Bool> mask, double x, double y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x, y));
    }

    /** An I64 array of the mask's shape: x where it is true, y where it is false. */
    public static SharedNDArray<I64> where(SharedNDArray<Bool> mask, long x, long y) {
        return SharedNDArray.of(WhereOps.where(mask.core(), x, y));
    }

    /** Stores a double scalar as an element of type t: floats rounded, integers only if whole and in range. */
}
