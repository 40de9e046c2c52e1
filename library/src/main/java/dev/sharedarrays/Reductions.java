package dev.sharedarrays;

import dev.sharedarrays.internal.array.Reduction;
import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.ReductionOps;

/**
 * Reductions of a {@link SharedNDArray}, whole or along one axis, under the array's read lock.
 * Sums and means accumulate in double (integers: numpy's wrapping 64-bit sum, then converted);
 * minima and maxima are exact in the element type; variances are numpy's (ddof 0); arg-reductions
 * give numpy's first index. Per-axis results and cumulative sums are new process-local arrays
 * (nothing to close; {@code share()} makes a shareable copy).
 *
 * @param <T> the element type marker
 */
public sealed interface Reductions<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /** Sum of all elements in double (integers: numpy's wrapping 64-bit sum, then converted). */
    default double sum() {
        return reduceAsDouble(Op.SUM);
    }

    /** {@link #sum()} divided by the number of elements. */
    default double mean() {
        return sum() / core().size();
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
        return ReductionOps.reduceAsDouble(core(), op);
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
        return ReductionOps.reduceAsLong(core(), op, method, instead);
    }

    /**
     * The product of all elements in double (integers: numpy's wrapping 64-bit product, unsigned
     * types as the unsigned value, then converted; exactly with {@link #prodAsLong()}).
     */
    default double prod() {
        return ReductionOps.product(core());
    }

    /**
     * The product of an integer array's elements as numpy computes it, wrapping in 64 bits (for
     * unsigned types the bits of numpy's uint64 product: {@link Long#toUnsignedString(long)}).
     *
     * @throws DTypeMismatchException if {@code dtype().isFloatingPoint()}: use {@link #prod()}
     */
    default long prodAsLong() {
        return ReductionOps.productAsLong(core());
    }

    /**
     * The variance of all elements, numpy's {@code var()} with {@code ddof = 0}: the mean of the
     * squared deviations from the mean, in double (numpy computes F32 arrays in float32).
     */
    default double variance() {
        return ReductionOps.variance(core());
    }

    /** The standard deviation of all elements: the square root of {@link #variance()} (numpy's {@code std()}, ddof 0). */
    default double std() {
        return Math.sqrt(variance());
    }

    /**
     * The row-major (flat) index of the first smallest element, as numpy's {@code argmin()}: a
     * float array with a NaN gives the index of its first NaN.
     */
    default long argmin() {
        return arg(false);
    }

    /** The row-major (flat) index of the first largest element; the first NaN's if there is one (numpy's {@code argmax()}). */
    default long argmax() {
        return arg(true);
    }

    private long arg(boolean max) {
        return ReductionOps.arg(core(), max);
    }

    /**
     * Sums along one axis (negative counts from the end) into a new process-local F64 array
     * without that axis (shape [1] for a 1-d array). Fast along any axis: an outer axis is
     * summed row after row as memory lies, in numpy's order.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     */
    default SharedNDArray<F64> sum(int axis) {
        return reduceAxis(axis, Reduction.SUM);
    }

    /** Means along one axis into a new F64 array without that axis; as {@link #sum(int)}. */
    default SharedNDArray<F64> mean(int axis) {
        return reduceAxis(axis, Reduction.MEAN);
    }

    /** Minima along one axis into a new array of this dtype without that axis (a NaN wins); as {@link #sum(int)}. */
    default SharedNDArray<T> min(int axis) {
        return reduceAxis(axis, Reduction.MIN);
    }

    /** Maxima along one axis into a new array of this dtype without that axis (a NaN wins); as {@link #sum(int)}. */
    default SharedNDArray<T> max(int axis) {
        return reduceAxis(axis, Reduction.MAX);
    }

    /** Products along one axis into a new F64 array, each as {@link #prod()}; as {@link #sum(int)}. */
    default SharedNDArray<F64> prod(int axis) {
        return reduceAxis(axis, Reduction.PROD);
    }

    /** Variances (ddof 0) along one axis into a new F64 array, each as {@link #variance()}; as {@link #sum(int)}. */
    default SharedNDArray<F64> variance(int axis) {
        return reduceAxis(axis, Reduction.VAR);
    }

    /** Standard deviations (ddof 0) along one axis into a new F64 array; as {@link #sum(int)}. */
    default SharedNDArray<F64> std(int axis) {
        return reduceAxis(axis, Reduction.STD);
    }

    /** Indices along the axis of the first minima (first NaN) into a new I64 array; as {@link #sum(int)}. */
    default SharedNDArray<I64> argmin(int axis) {
        return reduceAxis(axis, Reduction.ARGMIN);
    }

    /** Indices along the axis of the first maxima (first NaN) into a new I64 array; as {@link #sum(int)}. */
    default SharedNDArray<I64> argmax(int axis) {
        return reduceAxis(axis, Reduction.ARGMAX);
    }

    private <R extends DType<R>> SharedNDArray<R> reduceAxis(int axis, Reduction r) {
        return SharedNDArray.of(ReductionOps.reduceAxis(core(), axis, r));
    }

    /**
     * The running sums of all elements in row-major order, as numpy's {@code cumsum()}: a new
     * process-local 1-d array of {@code size()} elements whose dtype follows numpy: F64 and F32
     * keep theirs (F32 adds in float32, as numpy), signed integers and Bool give I64, unsigned U64, and
     * integer sums wrap. Type it with {@link SharedNDArray#as}, or use {@link #cumsum(int, DType)}.
     */
    default SharedNDArray<?> cumsum() {
        return SharedNDArray.of(ReductionOps.cumulative(core(), null, ReductionOps.cumsumType(core())));
    }

    /**
     * The running sums along one axis (negative counts from the end), as numpy's
     * {@code cumsum(axis)}: a new process-local array of this shape, dtype as {@link #cumsum()}.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     */
    default SharedNDArray<?> cumsum(int axis) {
        return SharedNDArray.of(ReductionOps.cumulative(core(), axis, ReductionOps.cumsumType(core())));
    }

    /**
     * {@link #cumsum(int)} accumulated in {@code dtype}, as numpy's {@code cumsum(axis, dtype=...)}:
     * integer sums wrap to its width, F32 rounds after each add.
     *
     * @throws DTypeMismatchException if this array is a float array and {@code dtype} an integer type
     *         (numpy refuses that cast too)
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     */
    default <R extends DType<R>> SharedNDArray<R> cumsum(int axis, R dtype) {
        return SharedNDArray.of(ReductionOps.cumulative(core(), axis, dtype));
    }
}
