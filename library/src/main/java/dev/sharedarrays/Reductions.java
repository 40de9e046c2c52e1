package dev.sharedarrays;

import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.ElementCodec;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;

/**
 * Reductions of a {@link SharedNDArray}, whole or along one axis, under the array's read lock.
 * Sums and means accumulate in double (integers: numpy's wrapping 64-bit sum, then converted);
 * minima and maxima are exact in the element type. Per-axis results are new arrays of this
 * process's backend that the caller closes.
 *
 * @param <T> the element type marker
 */
public sealed interface Reductions<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
    }

    /** Sum of all elements in double (integers: numpy's wrapping 64-bit sum, then converted). */
    default double sum() {
        return reduceAsDouble(Op.SUM);
    }

    /** {@link #sum()} divided by the number of elements. */
    default double mean() {
        return sum() / self().size();
    }

    /** The smallest element as a double (NaN if a float element is NaN). */
    default double minAsDouble() {
        return reduceAsDouble(Op.MIN);
    }

    /** The largest element as a double (NaN if a float element is NaN). */
    default double maxAsDouble() {
        return reduceAsDouble(Op.MAX);
    }

    private double reduceAsDouble(Op op) {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> a.type().isFloatingPoint() ? Loops.reduceFloat(a.type(), op, a.mem(), a.layout())
                : ElementCodec.longToDouble(a.type(), Loops.reduceInt(a.type(), op, a.mem(), a.layout())));
    }

    /**
     * The smallest element of an integer array, exactly (unsigned types as their value, U64 as its bit pattern).
     *
     * @throws DTypeMismatchException if {@code dtype().isFloatingPoint()}: use {@link #minAsDouble()}
     */
    default long minAsLong() {
        return reduceAsLong(Op.MIN, "minAsLong", "minAsDouble");
    }

    /**
     * The largest element of an integer array, exactly.
     *
     * @throws DTypeMismatchException if {@code dtype().isFloatingPoint()}: use {@link #maxAsDouble()}
     */
    default long maxAsLong() {
        return reduceAsLong(Op.MAX, "maxAsLong", "maxAsDouble");
    }

    private long reduceAsLong(Op op, String method, String instead) {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            if (a.type().isFloatingPoint()) {
                throw new DTypeMismatchException(method + "() is for integer arrays, this one holds " + a.dtype() + "; use " + instead + "()");
            }
            return Loops.reduceInt(a.type(), op, a.mem(), a.layout());
        });
    }

    /**
     * Sums along one axis into a new F64 array without that axis (shape [1] for a 1-d array).
     *
     * @throws IndexOutOfBoundsException if {@code axis < 0 || axis >= ndim()}
     */
    default SharedNDArray<F64> sum(int axis) {
        return reduceAxis(axis, Op.SUM, false);
    }

    /** Means along one axis into a new F64 array without that axis; as {@link #sum(int)}. */
    default SharedNDArray<F64> mean(int axis) {
        return reduceAxis(axis, Op.SUM, true);
    }

    /** Minima along one axis into a new array of this dtype without that axis; as {@link #sum(int)}. */
    default SharedNDArray<T> min(int axis) {
        return reduceAxis(axis, Op.MIN, false);
    }

    /** Maxima along one axis into a new array of this dtype without that axis; as {@link #sum(int)}. */
    default SharedNDArray<T> max(int axis) {
        return reduceAxis(axis, Op.MAX, false);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends DType<R>> SharedNDArray<R> reduceAxis(int axis, Op op, boolean mean) {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            MemorySegment d = a.mem();
            long[] outShape = AxisReduction.outShape(a.layout().shape(), axis);
            R outType = (R) DType.of(AxisReduction.outType(a.type(), op));
            return SharedNDArray.filled(SharedArrays.create(outType, outShape),
                    out -> AxisReduction.reduce(a.type(), op, mean, d, a.layout(), axis, out.mem()));
        });
    }
}
