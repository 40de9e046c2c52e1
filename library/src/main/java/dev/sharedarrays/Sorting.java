package dev.sharedarrays;

import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.LaneSort;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.function.LongFunction;

/**
 * Sorting a {@link SharedNDArray} along one axis, as numpy's {@code a.sort(axis=-1)} (in place,
 * under the array's write lock) and {@code np.sort(a, axis=-1)} (a process-local copy). Ascending;
 * float NaNs sort last as in numpy (and -0.0 before 0.0); unsigned types by their unsigned value.
 * One thread: a contiguous lane of 32- or 64-bit elements is sorted where it lies by the JDK's
 * AVX-512 quicksort on CPUs that have it (Linux x86_64, JDK 22-25), any other lane in a Java heap
 * array; either way an axis holds at most {@code Integer.MAX_VALUE - 8} elements.
 *
 * @param <T> the element type marker
 */
public sealed interface Sorting<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
    }

    /** Sorts along the last axis, in place: each row of a matrix. */
    default void sort() {
        sort(-1);
    }

    /**
     * Sorts along {@code axis} (negative counts from the end), in place.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     * @throws IllegalArgumentException if the axis is longer than {@code Integer.MAX_VALUE - 8}
     */
    default void sort(int axis) {
        SharedNDArray<T> a = self();
        AxisReduction.outShape(a.layout().shape(), axis);
        // a shm or file array's lanes are sorted natively in process-local memory (see LaneSort)
        LongFunction<MemorySegment> scratch = a.segment().mayShrink()
                ? bytes -> Local.empty(U8.TYPE, new long[] {bytes}).mem() : null;
        a.locks().write(() -> LaneSort.sort(a.type(), a.mem(), a.layout(), axis, scratch));
    }

    /** A process-local copy sorted along the last axis. */
    default SharedNDArray<T> sorted() {
        return sorted(-1);
    }

    /**
     * A process-local copy sorted along {@code axis}; this array is unchanged.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     * @throws IllegalArgumentException if the axis is longer than {@code Integer.MAX_VALUE - 8}
     */
    default SharedNDArray<T> sorted(int axis) {
        SharedNDArray<T> a = self();
        AxisReduction.outShape(a.layout().shape(), axis);
        SharedNDArray<T> out = a.locks().read(() -> {
            SharedNDArray<T> copy = Local.empty(a.dtype(), a.layout().shape());
            Loops.binary(a.type(), Op.ASSIGN, copy.mem(), copy.layout(), a.mem(), a.layout());
            return copy;
        });
        LaneSort.sort(out.type(), out.mem(), out.layout(), axis, null);
        return out;
    }
}
