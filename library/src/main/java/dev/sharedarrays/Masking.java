package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.MaskingOps;

/**
 * Boolean-mask indexing of a {@link SharedNDArray}, as numpy's {@code a[mask]} and
 * {@code a[mask] = v}: the mask is a {@link Bool} array of the array's shape, and its true
 * elements select elements of the array in row-major order. Reads take the read locks of the
 * array and the mask, writes the array's write lock (all in the order of array id).
 *
 * @param <T> the element type marker
 */
public sealed interface Masking<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /**
     * The selected elements, in row-major order, as a new process-local 1-d array ({@code a[mask]}).
     *
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     * @throws IllegalArgumentException if the mask selects no element: arrays have no empty shape
     */
    default SharedNDArray<T> masked(SharedNDArray<Bool> mask) {
        return SharedNDArray.of(MaskingOps.masked(core(), mask.core()));
    }

    /**
     * Stores value into the selected elements ({@code a[mask] = value}); integer types take it
     * truncated toward zero and wrapped, Bool any nonzero as true, as {@link SharedNDArray#setDouble}.
     *
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     */
    default void setMasked(SharedNDArray<Bool> mask, double value) {
        MaskingOps.setMasked(core(), mask.core(), value);
    }

    /**
     * Stores value into the selected elements ({@code a[mask] = value}).
     *
     * @throws IllegalArgumentException if value is out of range for an integer type (numpy 2 refuses it too)
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     */
    default void setMasked(SharedNDArray<Bool> mask, long value) {
        MaskingOps.setMasked(core(), mask.core(), value);
    }

    /**
     * Stores values, in row-major order, into the selected elements, in row-major order
     * ({@code a[mask] = values}); a one-element values array is stored into every selected one.
     * Values that overlap this array are read as they were before (through a copy).
     *
     * @throws DTypeMismatchException if {@code values.dtype() != dtype()}
     * @throws ShapeMismatchException if the mask's shape differs from this array's, or values has
     *         neither 1 element nor as many as the mask selects
     */
    default void setMasked(SharedNDArray<Bool> mask, SharedNDArray<T> values) {
        MaskingOps.setMasked(core(), mask.core(), values.core());
    }
}
