package dev.sharedarrays;

import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.Cmp;

/**
 * Element-wise comparisons of a {@link SharedNDArray} with a scalar or with another array of the
 * same dtype, as numpy's {@code a > 0.5} and {@code a == b}: each returns a new process-local
 * {@link Bool} array of the (broadcast) shape, holding 1 where the comparison holds. The
 * operands are read under their read locks (taken in the order of array id).
 *
 * <p>As in numpy: a NaN compares false, except with {@code ne}; a float scalar against an integer
 * array compares as float64 (I64 and U64 elements beyond 2^53 rounded to double, as numpy rounds
 * them); an integer scalar compares exactly, even outside the element type's range
 * ({@code u8.gt(300)} is all false); an F32 array compares with the scalar rounded to float32;
 * unsigned types compare as unsigned. Two arrays broadcast by numpy's rules.
 *
 * @param <T> the element type marker
 */
public sealed interface Comparisons<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
    }

    /** {@code a > value}, element-wise. */
    default SharedNDArray<Bool> gt(double value) {
        return compare(Cmp.GT, value);
    }

    /** {@code a > value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> gt(long value) {
        return compare(Cmp.GT, value);
    }

    /**
     * {@code a > other}, element-wise.
     *
     * @throws DTypeMismatchException if {@code other.dtype() != dtype()}
     * @throws ShapeMismatchException if the shapes do not broadcast
     */
    default SharedNDArray<Bool> gt(SharedNDArray<T> other) {
        return compare(Cmp.GT, other);
    }

    /** {@code a < value}, element-wise. */
    default SharedNDArray<Bool> lt(double value) {
        return compare(Cmp.LT, value);
    }

    /** {@code a < value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> lt(long value) {
        return compare(Cmp.LT, value);
    }

    /** {@code a < other}, element-wise; as {@link #gt(SharedNDArray)}. */
    default SharedNDArray<Bool> lt(SharedNDArray<T> other) {
        return compare(Cmp.LT, other);
    }

    /** {@code a >= value}, element-wise. */
    default SharedNDArray<Bool> ge(double value) {
        return compare(Cmp.GE, value);
    }

    /** {@code a >= value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> ge(long value) {
        return compare(Cmp.GE, value);
    }

    /** {@code a >= other}, element-wise; as {@link #gt(SharedNDArray)}. */
    default SharedNDArray<Bool> ge(SharedNDArray<T> other) {
        return compare(Cmp.GE, other);
    }

    /** {@code a <= value}, element-wise. */
    default SharedNDArray<Bool> le(double value) {
        return compare(Cmp.LE, value);
    }

    /** {@code a <= value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> le(long value) {
        return compare(Cmp.LE, value);
    }

    /** {@code a <= other}, element-wise; as {@link #gt(SharedNDArray)}. */
    default SharedNDArray<Bool> le(SharedNDArray<T> other) {
        return compare(Cmp.LE, other);
    }

    /** {@code a == value}, element-wise (a fractional value equals no integer element). */
    default SharedNDArray<Bool> eq(double value) {
        return compare(Cmp.EQ, value);
    }

    /** {@code a == value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> eq(long value) {
        return compare(Cmp.EQ, value);
    }

    /** {@code a == other}, element-wise; as {@link #gt(SharedNDArray)}. */
    default SharedNDArray<Bool> eq(SharedNDArray<T> other) {
        return compare(Cmp.EQ, other);
    }

    /** {@code a != value}, element-wise (true for NaN elements). */
    default SharedNDArray<Bool> ne(double value) {
        return compare(Cmp.NE, value);
    }

    /** {@code a != value}, element-wise, exact for integer arrays. */
    default SharedNDArray<Bool> ne(long value) {
        return compare(Cmp.NE, value);
    }

    /** {@code a != other}, element-wise; as {@link #gt(SharedNDArray)}. */
    default SharedNDArray<Bool> ne(SharedNDArray<T> other) {
        return compare(Cmp.NE, other);
    }

    private SharedNDArray<Bool> compare(Cmp c, double value) {
        SharedNDArray<T> a = self();
        return Elementwise.reading(() -> SharedNDArray.filled(Local.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.compareScalar(a.type(), c, a.mem(), a.layout(), out.mem(), out.layout(), value)), a);
    }

    private SharedNDArray<Bool> compare(Cmp c, long value) {
        SharedNDArray<T> a = self();
        return Elementwise.reading(() -> SharedNDArray.filled(Local.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.compareScalar(a.type(), c, a.mem(), a.layout(), out.mem(), out.layout(), value)), a);
    }

    private SharedNDArray<Bool> compare(Cmp c, SharedNDArray<T> other) {
        SharedNDArray<T> a = self();
        if (other.type() != a.type()) {
            throw new DTypeMismatchException("cannot compare a " + a.dtype() + " array with a " + other.dtype() + " array ("
                    + a.dtype().descr() + " vs " + other.dtype().descr() + "): convert one first");
        }
        long[] shape = Elementwise.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            StridedLayout la = a.layout().broadcastTo(shape);
            StridedLayout lb = other.layout().broadcastTo(shape);
            return SharedNDArray.filled(Local.empty(Bool.TYPE, shape),
                    out -> MaskOps.compare(a.type(), c, a.mem(), la, other.mem(), lb, out.mem(), out.layout()));
        }, a, other);
    }
}
