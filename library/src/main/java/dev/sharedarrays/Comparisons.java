package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.Cmp;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.ComparisonOps;

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

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
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
        return SharedNDArray.of(ComparisonOps.compare(core(), c, value));
    }

    private SharedNDArray<Bool> compare(Cmp c, long value) {
        return SharedNDArray.of(ComparisonOps.compare(core(), c, value));
    }

    private SharedNDArray<Bool> compare(Cmp c, SharedNDArray<T> other) {
        return SharedNDArray.of(ComparisonOps.compare(core(), c, other.core()));
    }
}
