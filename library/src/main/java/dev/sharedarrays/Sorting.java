package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.SortOps;

/**
 * Sorting a {@link SharedNDArray} along one axis, as numpy's {@code a.sort(axis=-1)} (in place,
 * under the array's write lock) and {@code np.sort(a, axis=-1)} (a process-local copy). Ascending;
 * float NaNs sort last as in numpy (and -0.0 before 0.0); unsigned types by their unsigned value.
 * One thread: a contiguous lane of 32- or 64-bit elements is sorted where it lies by the JDK's
 * AVX-512 quicksort on CPUs that have it (Linux x86_64, JDK 22-25), any other lane in a Java heap
 * array; either way an axis holds at most {@code Integer.MAX_VALUE - 8} elements.
 *
 * <p>Several cores, as {@link java.util.Arrays#parallelSort}: {@link #parallelSort()} and
 * {@link #parallelSorted()} split each long contiguous lane (of the types the native sort takes)
 * by value into a bucket per core (2^20 elements a core at least) on the common fork-join pool and
 * sort the buckets at once; the same result as {@link #sort()} and {@link #sorted()}, which any
 * other lane gets. numpy and torch have no parallel sort.
 *
 * @param <T> the element type marker
 */
public sealed interface Sorting<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
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
        SortOps.sort(core(), axis);
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
        return SharedNDArray.of(SortOps.sorted(core(), axis));
    }

    /** Sorts along the last axis in place, a long lane on several cores: the result of {@link #sort()}. */
    default void parallelSort() {
        parallelSort(-1);
    }

    /**
     * Sorts along {@code axis} in place, a long lane on several cores: the result of {@link #sort(int)}.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     * @throws IllegalArgumentException if the axis is longer than {@code Integer.MAX_VALUE - 8}
     */
    default void parallelSort(int axis) {
        SortOps.parallelSort(core(), axis);
    }

    /** A process-local copy sorted along the last axis, a long lane on several cores: {@link #sorted()}'s result. */
    default SharedNDArray<T> parallelSorted() {
        return parallelSorted(-1);
    }

    /**
     * A process-local copy sorted along {@code axis}, a long lane on several cores: {@link #sorted(int)}'s
     * result; this array is unchanged.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim() || axis >= ndim()}
     * @throws IllegalArgumentException if the axis is longer than {@code Integer.MAX_VALUE - 8}
     */
    default SharedNDArray<T> parallelSorted(int axis) {
        return SharedNDArray.of(SortOps.parallelSorted(core(), axis));
    }
}
