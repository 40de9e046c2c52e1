package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.JdkSimdSort;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.function.LongFunction;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The multi-core sort of a long contiguous lane (as {@link java.util.Arrays#parallelSort}), a sample
 * sort: splitters drawn from a sample cut the value range into one bucket per core (lanes of at
 * least {@link #MIN_CHUNK} elements a core); the threads of the common fork-join pool count their
 * part's elements per bucket, then scatter them to their bucket's place in the destination; each
 * bucket is then sorted where it lies by the native sort ({@link JdkSimdSort}), all at once. A
 * merge of sorted chunks instead measured 110 ms a pass for 16M doubles in Java, more than the
 * sort it split. Same order as {@link LaneSort}: NaNs last, -0.0 before 0.0, unsigned by value.
 * Anything else (a strided or short lane, another element type, one core, no native sort) is
 * {@link LaneSort}'s single-thread sort.
 */
public final class ParallelLaneSort {
    /** Below this many elements a bucket, threads cost more than they save. */
    static final long MIN_CHUNK = 1L << 20;

    /** Tests set a bucket count (2 or more) to exercise the partition on small lanes; 0: one per core. */
    private static volatile int forcedBuckets;

    private ParallelLaneSort() {
    }

    /** Sets the bucket count for tests (0 restores one per core, MIN_CHUNK elements each at least); returns the previous one. */
    static int forceBuckets(int buckets) {
        int before = forcedBuckets;
        forcedBuckets = buckets;
        return before;
    }

    /**
     * The number of buckets a lane of {@code axis} of l would be sorted in, or 1 if the lanes are
     * sorted by {@link LaneSort} (axis checked by the caller).
     */
    public static int buckets(ElementType t, StridedLayout l, int axis) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        if (lanes.stride() != 1 || LaneSort.nativeType(t) == 0 || lanes.length() > LaneSort.MAX_LANE) {
            return 1;
        }
        int forced = forcedBuckets;
        if (forced > 1) {
            return (int) Math.max(1, Math.min(forced, lanes.length()));
        }
        int cores = Math.min(Runtime.getRuntime().availableProcessors(), ForkJoinPool.getCommonPoolParallelism() + 1);
        return (int) Math.max(1, Math.min(cores, lanes.length() / MIN_CHUNK));
    }

    /**
     * Sorts the lanes of {@code axis} of {@code work} (memory that stays mapped; its contents are
     * clobbered) and leaves the result in the same positions of {@code dst} (native memory that
     * stays mapped, of the same layout, or work itself). {@code scratch} gives native memory
     * (bytes) to partition into when dst is work. The caller checked that {@link #buckets} is more than 1.
     */
    public static void sort(ElementType t, MemorySegment work, MemorySegment dst, StridedLayout l, int axis,
            LongFunction<MemorySegment> scratch) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        int n = (int) lanes.length();
        int buckets = buckets(t, l, axis);
        long size = t.itemSize();
        int type = LaneSort.nativeType(t);
        MemorySegment tmp = work == dst && work.isNative() ? scratch.apply(n * size) : null;
        // a small array or scratch lies on the heap (buckets forced by a test), where the native sort cannot go
        boolean native_ = work.isNative() && dst.isNative() && (tmp == null || tmp.isNative());
        lanes.rows((off, is, count) -> {
            for (long j = 0; j < count; j++) {
                long at = (off + j * is) * size;
                MemorySegment lane = work.asSlice(at, n * size);
                MemorySegment out = work == dst ? lane : dst.asSlice(at, n * size);
                if (!native_) {
                    LaneSort.sort(t, lane, new StridedLayout(0, new long[] {n}, new long[] {1}), 0, null);
                    if (out != lane) {
                        out.copyFrom(lane);
                    }
                } else if (tmp == null) {
                    sortLane(t, type, lane, out, n, buckets);
                } else {
                    MemorySegment into = tmp.asSlice(0, n * size);
                    sortLane(t, type, lane, into, n, buckets);
                    lane.copyFrom(into);
                }
            }
        });
    }

    /** Sorts the n elements of work (clobbered) into dst, a different native segment. */
    private static void sortLane(ElementType t, int type, MemorySegment work, MemorySegment dst, int n, int buckets) {
        // the NaNs go past the sorted part and the -0.0s become 0.0 (as in LaneSort); unsigned values flip
        long kept = n;
        switch (t) {
            case F64 -> kept = LaneSort.nansLastF64(work, n);
            case F32 -> kept = LaneSort.nansLastF32(work, n);
            case U64 -> LaneSort.flipLongs(work, n);
            case U32 -> LaneSort.flipInts(work, n);
            default -> {
            }
        }
        int m = (int) kept;
        int negativeZeros = (int) (kept >>> 32);
        boolean wide = t.itemSize() == 8;
        boolean floating = t.isFloatingPoint();
        long[] splitters = splitters(work, m, buckets, wide, floating);
        int k = splitters.length + 1;
        int parts = buckets; // the threads that count and scatter, each a slice of the elements
        long[][] counts = new long[parts][];
        List<Runnable> tasks = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            int part = p;
            long from = (long) m * p / parts;
            long to = (long) m * (p + 1) / parts;
            tasks.add(() -> counts[part] = count(work, from, to, splitters, wide, floating));
        }
        run(tasks);
        long[][] starts = SampleSplit.starts(counts, 0);
        long[] bucketStart = starts[parts];
        tasks.clear();
        for (int p = 0; p < parts; p++) {
            int part = p;
            long from = (long) m * p / parts;
            long to = (long) m * (p + 1) / parts;
            tasks.add(() -> scatter(work, from, to, splitters, wide, floating, dst, starts[part]));
        }
        run(tasks);
        tasks.clear();
        for (int b = 0; b < k; b++) {
            int from = (int) bucketStart[b];
            int to = (int) bucketStart[b + 1];
            if (to - from > 1) {
                tasks.add(() -> JdkSimdSort.sort(dst, type, from, to));
            }
        }
        run(tasks);
        long size = t.itemSize();
        if (m < n) {
            MemorySegment.copy(work, m * size, dst, m * size, (n - m) * size);
        }
        switch (t) {
            case F64 -> LaneSort.negativeZerosFirstF64(dst, m, negativeZeros);
            case F32 -> LaneSort.negativeZerosFirstF32(dst, m, negativeZeros);
            case U64 -> LaneSort.flipLongs(dst, n);
            case U32 -> LaneSort.flipInts(dst, n);
            default -> {
            }
        }
    }

    /**
     * A long that orders as element i of s does: floats here hold no NaN and no -0.0, and their
     * bits with the magnitude bits flipped for negatives order as signed integers; unsigned
     * values are flipped to signed order already.
     */
    private static long key(MemorySegment s, long i, boolean wide, boolean floating) {
        return wide ? key64(s.getAtIndex(JAVA_LONG, i), floating) : key32(s.getAtIndex(JAVA_INT, i), floating);
    }

    private static long key64(long v, boolean floating) {
        return floating ? v ^ ((v >> 63) & Long.MAX_VALUE) : v;
    }

    private static long key32(int v, boolean floating) {
        return floating ? v ^ ((v >> 31) & Integer.MAX_VALUE) : v;
    }

    /** buckets - 1 splitters, from a sorted sample spread evenly over the first m elements of s. */
    private static long[] splitters(MemorySegment s, int m, int buckets, boolean wide, boolean floating) {
        if (m < 2) {
            return new long[0];
        }
        int samples = Math.min(m, 256 * buckets);
        long[] sample = new long[samples];
        for (int i = 0; i < samples; i++) {
            sample[i] = key(s, (long) m * i / samples, wide, floating);
        }
        return SampleSplit.splitters(sample, buckets);
    }

    private static long[] count(MemorySegment s, long from, long to, long[] splitters, boolean wide, boolean floating) {
        long[] counts = new long[splitters.length + 1];
        if (splitters.length == 1) { // the usual case (two cores): a count of one comparison
            long sp = splitters[0];
            long above = 0;
            if (wide) {
                for (long i = from; i < to; i++) {
                    above += key64(s.getAtIndex(JAVA_LONG, i), floating) >= sp ? 1 : 0;
                }
            } else {
                for (long i = from; i < to; i++) {
                    above += key32(s.getAtIndex(JAVA_INT, i), floating) >= sp ? 1 : 0;
                }
            }
            counts[0] = to - from - above;
            counts[1] = above;
            return counts;
        }
        for (long i = from; i < to; i++) {
            counts[SampleSplit.bucket(key(s, i, wide, floating), splitters)]++;
        }
        return counts;
    }

    /** Writes elements [from, to) of s to out, each at the next place of its bucket (places: next, advanced). */
    private static void scatter(MemorySegment s, long from, long to, long[] splitters, boolean wide, boolean floating,
            MemorySegment out, long[] next) {
        long[] at = next.clone();
        if (splitters.length == 1) { // two buckets: both places in registers, no store and reload of a counter
            long sp = splitters[0];
            long lo = at[0];
            long hi = at[1];
            if (wide) {
                for (long i = from; i < to; i++) {
                    long v = s.getAtIndex(JAVA_LONG, i);
                    boolean up = key64(v, floating) >= sp;
                    out.setAtIndex(JAVA_LONG, up ? hi : lo, v);
                    hi += up ? 1 : 0;
                    lo += up ? 0 : 1;
                }
            } else {
                for (long i = from; i < to; i++) {
                    int v = s.getAtIndex(JAVA_INT, i);
                    boolean up = key32(v, floating) >= sp;
                    out.setAtIndex(JAVA_INT, up ? hi : lo, v);
                    hi += up ? 1 : 0;
                    lo += up ? 0 : 1;
                }
            }
            return;
        }
        if (wide) {
            for (long i = from; i < to; i++) {
                long v = s.getAtIndex(JAVA_LONG, i);
                out.setAtIndex(JAVA_LONG, at[SampleSplit.bucket(key64(v, floating), splitters)]++, v);
            }
        } else {
            for (long i = from; i < to; i++) {
                int v = s.getAtIndex(JAVA_INT, i);
                out.setAtIndex(JAVA_INT, at[SampleSplit.bucket(key32(v, floating), splitters)]++, v);
            }
        }
    }

    /** Runs the tasks on the common pool and this thread, rethrowing the first failure. */
    private static void run(List<Runnable> tasks) {
        if (tasks.size() == 1) {
            tasks.get(0).run();
            return;
        }
        List<ForkJoinTask<?>> all = new ArrayList<>(tasks.size());
        for (Runnable r : tasks) {
            all.add(ForkJoinTask.adapt(r));
        }
        ForkJoinTask.invokeAll(all);
    }
}
