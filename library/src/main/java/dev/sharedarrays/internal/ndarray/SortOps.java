package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.U8;
import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.LaneSort;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.Parallel;
import dev.sharedarrays.internal.array.ParallelLaneSort;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/** The work of {@code Sorting}: in place and into copies, on one thread or over the cores. */
public final class SortOps {
    private SortOps() {
    }

    /** Sorts in place; with more than one kernel thread ({@link Parallel#threads}) as {@link #parallelSort}. */
    public static void sort(ArrayCore a, int axis) {
        if (Parallel.threads() > 1) {
            parallelSort(a, axis);
            return;
        }
        AxisReduction.outShape(a.layout().shape(), axis);
        LongFunction<MemorySegment> scratch = scratchFor(a);
        a.locks().write(() -> LaneSort.sort(a.type(), a.mem(), a.layout(), axis, scratch));
    }

    /** A sorted copy; with more than one kernel thread as {@link #parallelSorted}. */
    public static ArrayCore sorted(ArrayCore a, int axis) {
        if (Parallel.threads() > 1) {
            return parallelSorted(a, axis);
        }
        AxisReduction.outShape(a.layout().shape(), axis);
        ArrayCore out = copyOf(a);
        LaneSort.sort(out.type(), out.mem(), out.layout(), axis, null);
        return out;
    }

    public static void parallelSort(ArrayCore a, int axis) {
        AxisReduction.outShape(a.layout().shape(), axis);
        if (ParallelLaneSort.buckets(a.type(), a.layout(), axis) < 2) {
            // no bucket sort (no native sort, or short lanes): a long lane's heap sort on several threads
            LongFunction<MemorySegment> scratch = scratchFor(a);
            a.locks().write(() -> LaneSort.sort(a.type(), a.mem(), a.layout(), axis, scratch, true));
            return;
        }
        a.locks().write(() -> withScratch(scratch -> {
            if (a.segment().mayShrink()) {
                // the native sort runs in a process-local copy: see sort
                ArrayCore work = ArrayCore.empty(a.dtype(), a.layout().shape());
                try {
                    Loops.binary(a.type(), Op.ASSIGN, work.mem(), work.layout(), a.mem(), a.layout());
                    ParallelLaneSort.sort(work.type(), work.mem(), work.mem(), work.layout(), axis, scratch);
                    Loops.binary(a.type(), Op.ASSIGN, a.mem(), a.layout(), work.mem(), work.layout());
                } finally {
                    work.close();
                }
            } else {
                ParallelLaneSort.sort(a.type(), a.mem(), a.mem(), a.layout(), axis, scratch);
            }
        }));
    }

    public static ArrayCore parallelSorted(ArrayCore a, int axis) {
        AxisReduction.outShape(a.layout().shape(), axis);
        ArrayCore work = copyOf(a);
        if (ParallelLaneSort.buckets(work.type(), work.layout(), axis) < 2) {
            LaneSort.sort(work.type(), work.mem(), work.layout(), axis, null, true);
            return work;
        }
        // the copy is split into the result by value, where the buckets are then sorted
        ArrayCore out = ArrayCore.empty(a.dtype(), a.layout().shape());
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

    /** For a shm or file array, process-local memory its lanes are sorted natively in (see LaneSort); else null. */
    private static LongFunction<MemorySegment> scratchFor(ArrayCore a) {
        return a.segment().mayShrink() ? bytes -> ArrayCore.empty(U8.TYPE, new long[] {bytes}).mem() : null;
    }

    private static ArrayCore copyOf(ArrayCore a) {
        return a.locks().read(() -> {
            ArrayCore copy = ArrayCore.empty(a.dtype(), a.layout().shape());
            Loops.binary(a.type(), Op.ASSIGN, copy.mem(), copy.layout(), a.mem(), a.layout());
            return copy;
        });
    }

    private static void withScratch(Consumer<LongFunction<MemorySegment>> body) {
        List<ArrayCore> made = new ArrayList<>();
        try {
            body.accept(bytes -> {
                ArrayCore s = ArrayCore.empty(U8.TYPE, new long[] {bytes});
                made.add(s);
                return s.mem();
            });
        } finally {
            made.forEach(ArrayCore::close);
        }
    }
}
