package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.array.HeapCopy;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Whole-array writes and copies of a {@link SharedNDArray}: fill, copies from and to Java heap
 * arrays in row-major order, and copies into new arrays. Writes take the array's write lock,
 * reads its read lock (see {@link SharedNDArray} for locks and threads).
 *
 * @param <T> the element type marker
 */
public sealed interface BulkAccess<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
    }

    /** Sets every element; integer types take the value truncated and wrapped. */
    default void fill(double value) {
        SharedNDArray<T> a = self();
        a.locks().write(() -> Loops.fill(a.type(), a.mem(), a.layout(), value, ElementCodec.toLongBits(a.type(), value)));
    }

    /** Sets every element; wrapped to the element width (floats: converted). */
    default void fill(long value) {
        SharedNDArray<T> a = self();
        a.locks().write(() -> Loops.fill(a.type(), a.mem(), a.layout(), (double) value, value));
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
        SharedNDArray<T> a = self();
        a.locks().write(() -> {
            if (length != a.size()) {
                throw new ShapeMismatchException("a heap array of " + length + " elements does not fit an array of size " + a.size()
                        + " (shape " + Arrays.toString(a.layout().shape()) + ")");
            }
            HeapCopy.copyIn(a.type(), a.mem(), a.layout(), heapArray);
        });
    }

    /** Copies another array of the same dtype and shape into this one (overlapping views as numpy: through a temporary). */
    default void copyFrom(SharedNDArray<T> other) {
        self().binary(Op.ASSIGN, other);
    }

    /** The elements in row-major order as doubles. */
    default double[] toDoubleArray() {
        return copyOut(new double[heapLength()]);
    }

    /** The elements in row-major order as longs, as {@link SharedNDArray#getLong(long)}. */
    default long[] toLongArray() {
        return copyOut(new long[heapLength()]);
    }

    /** The elements in row-major order as floats. */
    default float[] toFloatArray() {
        return copyOut(new float[heapLength()]);
    }

    /** The elements in row-major order as ints (wider values truncated to 32 bits). */
    default int[] toIntArray() {
        return copyOut(new int[heapLength()]);
    }

    /** The elements in row-major order as booleans: true for every nonzero element (NaN too), as numpy's cast to bool. */
    default boolean[] toBooleanArray() {
        return copyOut(new boolean[heapLength()]);
    }

    private <A> A copyOut(A heapArray) {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            HeapCopy.copyOut(a.type(), a.mem(), a.layout(), heapArray);
            return heapArray;
        });
    }

    private int heapLength() {
        long size = self().size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("an array of " + size + " elements does not fit a Java array; copy a slice");
        }
        return (int) size;
    }

    /**
     * The elements in row-major order, each in the closest Java type that holds it exactly:
     * Double, Float, Long, Integer, Short, Byte for the signed types; Integer for U8 and U16,
     * Long for U32, BigInteger for U64; Integer 0 or 1 for Bool. A copy.
     */
    default List<Number> toList() {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            Number[] out = new Number[heapLength()];
            MemorySegment d = a.mem();
            for (int i = 0; i < out.length; i++) {
                out[i] = ElementCodec.getNumber(a.type(), d, a.flatOffset(i));
            }
            return List.of(out);
        });
    }

    /**
     * A new contiguous process-local array with these elements (see {@link Conversions#isLocal()}):
     * freed by the garbage collector; {@link Conversions#share()} or {@link #copy(CreateOptions)}
     * for a copy other processes can attach.
     */
    default SharedNDArray<T> copy() {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            a.checkOpen();
            SharedNDArray<T> out = Local.empty(a.dtype(), a.layout().shape());
            Loops.binary(a.type(), Op.ASSIGN, out.mem(), out.layout(), a.mem(), a.layout());
            return out;
        });
    }

    /** A new contiguous shared array with these elements, created as {@code options} say. */
    default SharedNDArray<T> copy(CreateOptions options) {
        SharedNDArray<T> a = self();
        return a.locks().read(() -> {
            a.checkOpen();
            return SharedNDArray.filled(SharedArrays.create(a.dtype(), a.layout().shape(), options),
                    out -> Loops.binary(a.type(), Op.ASSIGN, out.mem(), out.layout(), a.mem(), a.layout()));
        });
    }
}
