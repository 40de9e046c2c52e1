package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.ndarray.ArrayCore;

/**
 * In-place arithmetic of a {@link SharedNDArray} with a scalar or with another array of the
 * same dtype whose shape broadcasts to this one by numpy's rule (or, for contiguous arrays, with
 * as many elements); {@link Arithmetic} has the out-of-place forms. Runs under the array's write
 * lock (and the operand's read lock, taken in the order of array id). Integer arithmetic wraps
 * and divides by floor division; an integer scalar must fit the element type
 * ({@link IllegalArgumentException}); a zero integer divisor is an {@link ArithmeticException}
 * before anything is written. {@code a.add(a)} doubles; overlapping views are read as numpy
 * does, through a temporary.
 *
 * @param <T> the element type marker
 */
public sealed interface InPlaceArithmetic<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /** Adds a scalar to every element, in place. */
    default void add(double value) {
        core().scalar(Op.ADD, value);
    }

    /** Subtracts a scalar from every element, in place. */
    default void sub(double value) {
        core().scalar(Op.SUB, value);
    }

    /** Multiplies every element by a scalar, in place. */
    default void mul(double value) {
        core().scalar(Op.MUL, value);
    }

    /** Divides every element by a scalar, in place (IEEE for floats: x/0 is ±inf or NaN). */
    default void divide(double value) {
        core().scalar(Op.DIV, value);
    }

    /** Adds an integer scalar in place; integer arrays wrap. */
    default void add(long value) {
        core().scalar(Op.ADD, value);
    }

    /** Subtracts an integer scalar in place; integer arrays wrap. */
    default void sub(long value) {
        core().scalar(Op.SUB, value);
    }

    /** Multiplies by an integer scalar in place; integer arrays wrap. */
    default void mul(long value) {
        core().scalar(Op.MUL, value);
    }

    /**
     * Divides by an integer scalar in place: floor division for integer arrays.
     *
     * @throws ArithmeticException if {@code value == 0} for an integer array (nothing is written)
     */
    default void divide(long value) {
        core().scalar(Op.DIV, value);
    }

    /**
     * Adds another array element-wise, in place.
     *
     * @throws DTypeMismatchException if {@code other.dtype() != dtype()}
     * @throws ShapeMismatchException if other's shape does not broadcast to this shape (numpy's rule)
     */
    default void add(SharedNDArray<T> other) {
        core().binary(Op.ADD, other.core());
    }

    /** Subtracts another array element-wise, in place; as {@link #add(SharedNDArray)}. */
    default void sub(SharedNDArray<T> other) {
        core().binary(Op.SUB, other.core());
    }

    /** Multiplies by another array element-wise, in place; as {@link #add(SharedNDArray)}. */
    default void mul(SharedNDArray<T> other) {
        core().binary(Op.MUL, other.core());
    }

    /**
     * Divides by another array element-wise, in place (floor division for integer arrays); as {@link #add(SharedNDArray)}.
     *
     * @throws ArithmeticException if an integer divisor element is 0 (nothing is written)
     */
    default void divide(SharedNDArray<T> other) {
        core().binary(Op.DIV, other.core());
    }
}
