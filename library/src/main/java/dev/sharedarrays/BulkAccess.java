package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.Op;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.BulkOps;
import java.util.List;

/**
 * Whole-array writes and copies of a {@link SharedNDArray}: fill, copies from and to Java heap
 * arrays in row-major order, and copies into new arrays. Writes take the array's write lock,
 * reads its read lock (see {@link SharedNDArray} for locks and threads).
 *
 * @param <T> the element type marker
 */
public sealed interface BulkAccess<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /** Sets every element; integer types take the value truncated and wrapped. */
    default void fill(double value) {
        BulkOps.fill(core(), value);
    }

    /** Sets every element; wrapped to the element width (floats: converted). */
    default void fill(long value) {
        BulkOps.fill(core(), value);
    }

    /** Sets every element to zero. */
    default void zero() {
        fill(0L);
    }

    /**
     * Copies the values in row-major order, converted as {@link SharedNDArray#setDouble} (and as
     * {@link SharedNDArray#setLong} for the integer overloads).
     *
     * @throws ShapeMismatchException if {@code values.length != size()}
     */
    default void copyFrom(double[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}. */
    default void copyFrom(long[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}. */
    default void copyFrom(int[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}. */
    default void copyFrom(float[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}. */
    default void copyFrom(short[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}. */
    default void copyFrom(byte[] values) {
        copyIn(values, values.length);
    }

    /** As {@link #copyFrom(double[])}: true is 1, false is 0. */
    default void copyFrom(boolean[] values) {
        copyIn(values, values.length);
    }

    private void copyIn(Object heapArray, int length) {
        BulkOps.copyIn(core(), heapArray, length);
    }

    /** Copies another array of the same dtype and shape into this one (overlapping views as numpy: through a temporary). */
    default void copyFrom(SharedNDArray<T> other) {
        core().binary(Op.ASSIGN, other.core());
    }

    /** The elements in row-major order as doubles. */
    default double[] toDoubleArray() {
        return BulkOps.copyOut(core(), new double[BulkOps.heapLength(core())]);
    }

    /** The elements in row-major order as longs, as {@link SharedNDArray#getLong(long)}. */
    default long[] toLongArray() {
        return BulkOps.copyOut(core(), new long[BulkOps.heapLength(core())]);
    }

    /** The elements in row-major order as floats. */
    default float[] toFloatArray() {
        return BulkOps.copyOut(core(), new float[BulkOps.heapLength(core())]);
    }

    /** The elements in row-major order as ints (wider values truncated to 32 bits). */
    default int[] toIntArray() {
        return BulkOps.copyOut(core(), new int[BulkOps.heapLength(core())]);
    }

    /** The elements in row-major order as booleans: true for every nonzero element (NaN too), as numpy's cast to bool. */
    default boolean[] toBooleanArray() {
        return BulkOps.copyOut(core(), new boolean[BulkOps.heapLength(core())]);
    }

    /**
     * The elements in row-major order, each in the closest Java type that holds it exactly:
     * Double, Float, Long, Integer, Short, Byte for the signed types; Integer for U8 and U16,
     * Long for U32, BigInteger for U64; Integer 0 or 1 for Bool. A copy.
     */
    default List<Number> toList() {
        return BulkOps.toList(core());
    }

    /**
     * A new contiguous process-local array with these elements (see {@link Conversions#isLocal()}):
     * freed by the garbage collector; {@link Conversions#share()} or {@link #copy(CreateOptions)}
     * for a copy other processes can attach.
     */
    default SharedNDArray<T> copy() {
        return SharedNDArray.of(BulkOps.copy(core()));
    }

    /** A new contiguous shared array with these elements, created as {@code options} say. */
    default SharedNDArray<T> copy(CreateOptions options) {
        return SharedNDArray.of(BulkOps.copy(core(), options));
    }
}
