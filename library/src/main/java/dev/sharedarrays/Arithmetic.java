package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.ndarray.ArithmeticOps;
import dev.sharedarrays.internal.ndarray.ArrayCore;

/**
 * Out-of-place arithmetic of a {@link SharedNDArray}, numpy's {@code a + b}: each result is a
 * new process-local array of the same element type (see {@link Conversions#isLocal()}), and the
 * operands are left as they were. Two arrays broadcast by numpy's rule (trailing dimensions
 * equal or 1), so a row adds to every row of a matrix. Integer arrays follow the in-place rules
 * of {@link InPlaceArithmetic}: they wrap, divide with floor division (numpy's {@code //}), refuse
 * a zero divisor, and take scalars that fit their type; a float scalar must be a whole number
 * (numpy would promote to float64: {@code astype(F64.TYPE)} first). The operands' read locks
 * are held while the result is computed.
 *
 * @param <T> the element type marker
 */
public sealed interface Arithmetic<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /**
     * {@code this + other}, broadcast.
     *
     * @throws ShapeMismatchException naming both shapes if they do not broadcast
     * @throws DTypeMismatchException if the element types differ
     */
    default SharedNDArray<T> plus(SharedNDArray<T> other) {
        return combine(Op.ADD, other);
    }

    /** {@code this - other}, broadcast; as {@link #plus(SharedNDArray)}. */
    default SharedNDArray<T> minus(SharedNDArray<T> other) {
        return combine(Op.SUB, other);
    }

    /** {@code this * other}, broadcast; as {@link #plus(SharedNDArray)}. */
    default SharedNDArray<T> times(SharedNDArray<T> other) {
        return combine(Op.MUL, other);
    }

    /**
     * {@code this / other}, broadcast (floor division for integer arrays); as {@link #plus(SharedNDArray)}.
     *
     * @throws ArithmeticException if an integer divisor element is 0
     */
    default SharedNDArray<T> dividedBy(SharedNDArray<T> other) {
        return combine(Op.DIV, other);
    }

    /** {@code this + value}. */
    default SharedNDArray<T> plus(double value) {
        return withScalar(Op.ADD, value, 0, false);
    }

    /** {@code this - value}. */
    default SharedNDArray<T> minus(double value) {
        return withScalar(Op.SUB, value, 0, false);
    }

    /** {@code this * value}. */
    default SharedNDArray<T> times(double value) {
        return withScalar(Op.MUL, value, 0, false);
    }

    /** {@code this / value} (floor division for integer arrays). */
    default SharedNDArray<T> dividedBy(double value) {
        return withScalar(Op.DIV, value, 0, false);
    }

    /** {@code this + value}; the value must fit an integer element type. */
    default SharedNDArray<T> plus(long value) {
        return withScalar(Op.ADD, 0, value, true);
    }

    /** {@code this - value}. */
    default SharedNDArray<T> minus(long value) {
        return withScalar(Op.SUB, 0, value, true);
    }

    /** {@code this * value}. */
    default SharedNDArray<T> times(long value) {
        return withScalar(Op.MUL, 0, value, true);
    }

    /** {@code this / value} (floor division for integer arrays). */
    default SharedNDArray<T> dividedBy(long value) {
        return withScalar(Op.DIV, 0, value, true);
    }

    /** {@code value - this} (numpy's reflected subtract). */
    default SharedNDArray<T> subtractedFrom(double value) {
        return reflected(Op.SUB, value, 0, false);
    }

    /** {@code value - this}. */
    default SharedNDArray<T> subtractedFrom(long value) {
        return reflected(Op.SUB, 0, value, true);
    }

    /** {@code value / this} (floor division for integer arrays). */
    default SharedNDArray<T> dividing(double value) {
        return reflected(Op.DIV, value, 0, false);
    }

    /** {@code value / this}. */
    default SharedNDArray<T> dividing(long value) {
        return reflected(Op.DIV, 0, value, true);
    }

    /** {@code -this}: floats flip their sign (-0.0 too), integers wrap (numpy's negative). */
    default SharedNDArray<T> negate() {
        return SharedNDArray.of(ArithmeticOps.negate(core()));
    }

    private SharedNDArray<T> combine(Op op, SharedNDArray<T> other) {
        return SharedNDArray.of(ArithmeticOps.combine(op, core(), other.core()));
    }

    /** this (op) the scalar: lv if isLong, else dv. */
    private SharedNDArray<T> withScalar(Op op, double dv, long lv, boolean isLong) {
        return SharedNDArray.of(ArithmeticOps.withScalar(core(), op, dv, lv, isLong));
    }

    /** value (op) this: lv if isLong, else dv. */
    private SharedNDArray<T> reflected(Op op, double dv, long lv, boolean isLong) {
        return SharedNDArray.of(ArithmeticOps.reflected(core(), op, dv, lv, isLong));
    }
}
