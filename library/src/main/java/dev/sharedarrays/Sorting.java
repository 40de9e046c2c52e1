package dev.sharedarrays;

import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.LaneSort;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.ParallelLaneSort;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongFunction;

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
        SharedNDArray<T> a = self();
        AxisReduction.outShape(a.layout().shape(), axis);
        if (ParallelLaneSort.buckets(a.type(), a.layout(), axis) < 2) {
            sort(axis);
            return;
        }
        a.locks().write(() -> withScratch(scratch -> {
            if (a.segment().mayShrink()) {
                // the native sort runs in a process-local copy: see sort(int)
                try (SharedNDArray<T> work = Local.empty(a.dtype(), a.layout().shape())) {
                    Loops.binary(a.type(), Op.ASSIGN, work.mem(), work.layout(), a.mem(), a.layout());
                    ParallelLaneSort.sort(work.type(), work.mem(), work.mem(), work.layout(), axis, scratch);
                    Loops.binary(a.type(), Op.ASSIGN, a.mem(), a.layout(), work.mem(), work.layout());
                }
            } else {
                ParallelLaneSort.sort(a.type(), a.mem(), a.mem(), a.layout(), axis, scratch);
            }
        }));
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
        SharedNDArray<T> a = self();
        AxisReduction.outShape(a.layout().shape(), axis);
        SharedNDArray<T> work = a.locks().read(() -> {
            SharedNDArray<T> copy = Local.empty(a.dtype(), a.layout().shape());
            Loops.binary(a.type(), Op.ASSIGN, copy.mem(), copy.layout(), a.mem(), a.layout());
            return copy;
        });
        if (ParallelLaneSort.buckets(work.type(), work.layout(), axis) < 2) {
            LaneSort.sort(work.type(), work.mem(), work.layout(), axis, null);
            return work;
        }
        // the copy is split into the result by value, where the buckets are then sorted
        SharedNDArray<T> out = Local.empty(a.dtype(), a.layout().shape());
        try {
            withScratch(scratch -> ParallelLaneSort.sort(work.type(), work.mem(), out.mem(), work.layout(), axis, scratch));
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        } finally {
            work.close();
        }
        return out;
    }

    /** Runs body with a source of process-local scratch memory, freed (for reuse) when it returns. */
    private static void withScratch(Consumer<LongFunction<MemorySegment>> body) {
        List<SharedNDArray<U8>> made = new ArrayList<>();
        try {
            body.accept(bytes -> {
                SharedNDArray<U8> s = Local.empty(U8.TYPE, new long[] {bytes});
                made.add(s);
                return s.mem();
            });
        } finally {
            made.forEach(SharedNDArray::close);
        }
    }
}
