package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.JdkSimdSort;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.function.LongFunction;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The multi-core sort of a long contiguous lane (as {@link java.util.Arrays#parallelSort}): the lane
 * is cut into one chunk per core (at least {@link #MIN_CHUNK} elements each), each chunk sorted by
 * the native sort ({@link JdkSimdSort}) on its own thread of the common fork-join pool, then the
 * sorted runs merged pairwise, level by level, each merge split by output position (co-rank) over
 * the threads. Same order as {@link LaneSort}: NaNs last, -0.0 before 0.0, unsigned by value.
 * Anything else (a strided or short lane, another element type, one core, no native sort) is
 * {@link LaneSort}'s single-thread sort.
 */
public final class ParallelLaneSort {
    /** Below this many elements per chunk, threads and the merge cost more than they save. */
    static final long MIN_CHUNK = 1L << 20;

    /** Tests set a chunk count (2 or more) to exercise the merge on small lanes; 0: one per core. */
    private static volatile int forcedChunks;

    private ParallelLaneSort() {
    }

    /** Sets the chunk count for tests (0 restores one chunk per core, at least MIN_CHUNK each); returns the previous one. */
    static int forceChunks(int chunks) {
        int before = forcedChunks;
        forcedChunks = chunks;
        return before;
    }

    /**
     * The number of chunks a lane of {@code axis} of l would be sorted in, or 1 if the lanes are
     * sorted by {@link LaneSort} (axis checked by the caller).
     */
    public static int chunks(ElementType t, StridedLayout l, int axis) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        if (lanes.stride() != 1 || LaneSort.nativeType(t) == 0 || lanes.length() > LaneSort.MAX_LANE) {
            return 1;
        }
        int forced = forcedChunks;
        if (forced > 1) {
            return (int) Math.max(1, Math.min(forced, lanes.length()));
        }
        int cores = Math.min(Runtime.getRuntime().availableProcessors(), ForkJoinPool.getCommonPoolParallelism() + 1);
        return (int) Math.max(1, Math.min(cores, lanes.length() / MIN_CHUNK));
    }

    /**
     * Sorts the lanes of {@code axis} of {@code work} (native memory that stays mapped: the native
     * sort runs in it) and leaves the result in the same positions of {@code dst} (any memory of
     * the same layout, or work itself; the merges write it from Java). {@code scratch} gives
     * native memory (bytes) for the merges' intermediate runs. The caller checked that
     * {@link #chunks} is more than 1.
     */
    public static void sort(ElementType t, MemorySegment work, MemorySegment dst, StridedLayout l, int axis,
            LongFunction<MemorySegment> scratch) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        int n = (int) lanes.length();
        int chunks = chunks(t, l, axis);
        long size = t.itemSize();
        int type = LaneSort.nativeType(t);
        // one merge level into dst when it is not work; else (or with more levels) a buffer between
        boolean direct = work != dst && chunks == 2;
        MemorySegment tmp = direct ? null : scratch.apply(n * size);
        lanes.rows((off, is, count) -> {
            for (long j = 0; j < count; j++) {
                long at = (off + j * is) * size;
                MemorySegment lane = work.asSlice(at, n * size);
                // the merges tell the buffers apart by identity: one slice when work is dst
                sortLane(t, type, lane, work == dst ? lane : dst.asSlice(at, n * size), tmp, n, chunks);
            }
        });
    }

    private static void sortLane(ElementType t, int type, MemorySegment work, MemorySegment dst, MemorySegment tmp, int n,
            int chunks) {
        if (!work.isNative()) { // a small array on the heap (chunks forced by a test): the native sort cannot take it
            LaneSort.sort(t, work, new StridedLayout(0, new long[] {n}, new long[] {1}), 0, null);
            if (work != dst) {
                MemorySegment.copy(work, 0, dst, 0, n * t.itemSize());
            }
            return;
        }
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
        int k = (int) Math.max(1, Math.min(chunks, m / 2));
        long[] bounds = new long[k + 1];
        for (int c = 0; c <= k; c++) {
            bounds[c] = (long) m * c / k;
        }
        List<Runnable> sorts = new ArrayList<>();
        for (int c = 0; c < k; c++) {
            int from = (int) bounds[c];
            int to = (int) bounds[c + 1];
            sorts.add(() -> JdkSimdSort.sort(work, type, from, to));
        }
        run(sorts);
        merge(t, work, dst, tmp, bounds, chunks);
        long size = t.itemSize();
        if (work != dst && m < n) {
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
     * Merges the sorted runs [bounds[i], bounds[i+1]) of work pairwise, level by level, alternating
     * between work and tmp, the last level into dst (through tmp and a copy if dst is the source).
     */
    private static void merge(ElementType t, MemorySegment work, MemorySegment dst, MemorySegment tmp, long[] bounds, int threads) {
        long size = t.itemSize();
        long m = bounds[bounds.length - 1];
        MemorySegment from = work;
        long[] runs = bounds;
        if (runs.length == 2) { // one run
            if (from != dst) {
                MemorySegment.copy(from, 0, dst, 0, m * size);
            }
            return;
        }
        while (runs.length > 2) {
            boolean last = runs.length <= 3;
            MemorySegment to = last && from != dst ? dst : from == work ? tmp : work;
            int pairs = (runs.length - 1) / 2;
            int pieces = Math.max(1, threads / pairs);
            List<Runnable> tasks = new ArrayList<>();
            long[] next = new long[(runs.length - 1 + 1) / 2 + 1];
            int r = 0;
            int w = 0;
            for (; r + 2 < runs.length; r += 2) {
                long a0 = runs[r];
                long b0 = runs[r + 1];
                long b1 = runs[r + 2];
                next[w++] = a0;
                long total = b1 - a0;
                long[] split = new long[pieces + 1];
                for (int p = 0; p <= pieces; p++) {
                    long out = total * p / pieces;
                    split[p] = coRank(t, from, a0, b0 - a0, b0, b1 - b0, out);
                }
                MemorySegment src = from;
                MemorySegment into = to;
                for (int p = 0; p < pieces; p++) {
                    long o = total * p / pieces;
                    long oe = total * (p + 1) / pieces;
                    long i = split[p];
                    long ie = split[p + 1];
                    tasks.add(() -> mergeRuns(t, src, a0 + i, a0 + ie, b0 + (o - i), b0 + (oe - ie), into, a0 + o));
                }
            }
            if (r + 1 < runs.length) { // an odd run out moves along
                next[w++] = runs[r];
                if (from != to) {
                    MemorySegment.copy(from, runs[r] * size, to, runs[r] * size, (runs[r + 1] - runs[r]) * size);
                }
            }
            next[w] = m;
            run(tasks);
            runs = next;
            from = to;
        }
        if (from != dst) {
            MemorySegment.copy(from, 0, dst, 0, m * size);
        }
    }

    /**
     * How many of the first {@code out} elements of the merge of runs A = s[a0, a0+na) and
     * B = s[b0, b0+nb) come from A: the least i whose A[i] is not at or below B[out-i-1], so that
     * everything before the split is at or below everything after it.
     */
    private static long coRank(ElementType t, MemorySegment s, long a0, long na, long b0, long nb, long out) {
        long lo = Math.max(0, out - nb);
        long hi = Math.min(out, na);
        while (lo < hi) {
            long i = (lo + hi) >>> 1;
            long j = out - i;
            if (j > 0 && atOrBelow(t, s, a0 + i, b0 + j - 1)) {
                lo = i + 1;
            } else {
                hi = i;
            }
        }
        return lo;
    }

    /** s[x] <= s[y] (floats here hold no NaN; unsigned values are flipped to signed order). */
    private static boolean atOrBelow(ElementType t, MemorySegment s, long x, long y) {
        return switch (t) {
            case F64 -> s.getAtIndex(JAVA_DOUBLE, x) <= s.getAtIndex(JAVA_DOUBLE, y);
            case F32 -> s.getAtIndex(JAVA_FLOAT, x) <= s.getAtIndex(JAVA_FLOAT, y);
            case I64, U64 -> s.getAtIndex(JAVA_LONG, x) <= s.getAtIndex(JAVA_LONG, y);
            default -> s.getAtIndex(JAVA_INT, x) <= s.getAtIndex(JAVA_INT, y);
        };
    }

    private static void mergeRuns(ElementType t, MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o) {
        switch (t) {
            case F64 -> mergeF64(s, i, ie, j, je, out, o);
            case F32 -> mergeF32(s, i, ie, j, je, out, o);
            case I64, U64 -> mergeI64(s, i, ie, j, je, out, o);
            default -> mergeI32(s, i, ie, j, je, out, o);
        }
    }

    // one loop per type, without branches on the data: random runs would mispredict half the time

    private static void mergeF64(MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o) {
        while (i < ie && j < je) {
            double x = s.getAtIndex(JAVA_DOUBLE, i);
            double y = s.getAtIndex(JAVA_DOUBLE, j);
            boolean b = y < x;
            out.setAtIndex(JAVA_DOUBLE, o++, b ? y : x);
            i += b ? 0 : 1;
            j += b ? 1 : 0;
        }
        rest(s, i, ie, j, je, out, o, 8);
    }

    private static void mergeF32(MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o) {
        while (i < ie && j < je) {
            float x = s.getAtIndex(JAVA_FLOAT, i);
            float y = s.getAtIndex(JAVA_FLOAT, j);
            boolean b = y < x;
            out.setAtIndex(JAVA_FLOAT, o++, b ? y : x);
            i += b ? 0 : 1;
            j += b ? 1 : 0;
        }
        rest(s, i, ie, j, je, out, o, 4);
    }

    private static void mergeI64(MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o) {
        while (i < ie && j < je) {
            long x = s.getAtIndex(JAVA_LONG, i);
            long y = s.getAtIndex(JAVA_LONG, j);
            boolean b = y < x;
            out.setAtIndex(JAVA_LONG, o++, b ? y : x);
            i += b ? 0 : 1;
            j += b ? 1 : 0;
        }
        rest(s, i, ie, j, je, out, o, 8);
    }

    private static void mergeI32(MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o) {
        while (i < ie && j < je) {
            int x = s.getAtIndex(JAVA_INT, i);
            int y = s.getAtIndex(JAVA_INT, j);
            boolean b = y < x;
            out.setAtIndex(JAVA_INT, o++, b ? y : x);
            i += b ? 0 : 1;
            j += b ? 1 : 0;
        }
        rest(s, i, ie, j, je, out, o, 4);
    }

    /** Copies what is left of either run after the other ran out. */
    private static void rest(MemorySegment s, long i, long ie, long j, long je, MemorySegment out, long o, long size) {
        MemorySegment.copy(s, i * size, out, o * size, (ie - i) * size);
        o += ie - i;
        MemorySegment.copy(s, j * size, out, o * size, (je - j) * size);
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
