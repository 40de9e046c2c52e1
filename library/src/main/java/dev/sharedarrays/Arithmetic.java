package dev.sharedarrays;

import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;

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

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
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
        SharedNDArray<T> a = self();
        if (a.type().isFloatingPoint()) {
            return withScalar(Op.MUL, -1.0, 0, false);
        }
        return reflected(Op.SUB, 0, 0, true);
    }

    private SharedNDArray<T> combine(Op op, SharedNDArray<T> other) {
        SharedNDArray<T> a = self();
        if (a.type() != other.type()) {
            throw new DTypeMismatchException("cannot " + op.verb() + " a " + other.dtype() + " array and a " + a.dtype()
                    + " array: dtypes differ (" + other.dtype().descr() + " vs " + a.dtype().descr() + "); convert one with astype");
        }
        long[] shape = Shapes.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            a.checkOpen();
            other.checkOpen();
            StridedLayout lb = other.layout().broadcastTo(shape);
            InPlace.checkOperand(a.type(), op, other.mem(), lb);
            SharedNDArray<T> out = Local.empty(a.dtype(), shape);
            Loops.binaryInto(a.type(), op, out.mem(), out.layout(), a.mem(), a.layout().broadcastTo(shape), other.mem(), lb);
            return out;
        }, a, other);
    }

    /** this (op) the scalar: lv if isLong, else dv; checked before the result is made. */
    private SharedNDArray<T> withScalar(Op op, double dv, long lv, boolean isLong) {
        SharedNDArray<T> a = self();
        ElementType t = a.type();
        InPlace.checkArithmetic(t, op);
        long l = isLong || t.isFloatingPoint() ? lv : InPlace.wholeOperand(t, op, dv);
        InPlace.checkScalar(t, op, l);
        double d = isLong ? lv : dv;
        return a.locks().read(() -> {
            a.checkOpen();
            SharedNDArray<T> out = Local.empty(a.dtype(), a.layout().shape());
            Loops.scalarInto(t, op, out.mem(), out.layout(), a.mem(), a.layout(), d, l);
            return out;
        });
    }

    /** value (op) this, numpy's reflected operation: lv if isLong, else dv. */
    private SharedNDArray<T> reflected(Op op, double dv, long lv, boolean isLong) {
        SharedNDArray<T> a = self();
        ElementType t = a.type();
        InPlace.checkArithmetic(t, op);
        long l = isLong || t.isFloatingPoint() ? lv : InPlace.wholeOperand(t, op, dv);
        InPlace.checkRange(t, l);
        double d = isLong ? lv : dv;
        return a.locks().read(() -> {
            a.checkOpen();
            InPlace.checkOperand(t, op, a.mem(), a.layout()); // a is the divisor
            SharedNDArray<T> out = Local.empty(a.dtype(), a.layout().shape());
            Loops.reflectedInto(t, op, out.mem(), out.layout(), d, l, a.mem(), a.layout());
            return out;
        });
    }
}
