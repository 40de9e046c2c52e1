package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.JdkSimdSort;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.LongFunction;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Sorts every lane of one axis in place, ascending. A contiguous lane of 32- or 64-bit elements
 * is sorted where it lies by the JDK's vectorized quicksort ({@link JdkSimdSort}: AVX-512 for
 * either size, AVX2 for 32-bit elements) where that is available; elsewhere a long contiguous
 * lane of 64-bit elements is radix-sorted through heap keys ({@link RadixSort#sortWide}), and any other lane is copied to a heap array, sorted there
 * ({@link RadixSort}, or {@link Arrays#sort} for a short lane) and copied back. Floats order as numpy's sort does: NaNs last (and -0.0 before 0.0, which numpy
 * leaves in any order); unsigned types by value (U64 past 2^63 too).
 */
public final class LaneSort {
    /** The longest lane a Java array holds. */
    static final long MAX_LANE = Integer.MAX_VALUE - 8;

    private LaneSort() {
    }

    /**
     * Sorts the lanes of {@code axis} (checked) of layout l. Given {@code scratch} (for a shm or
     * file array, which another process could truncate), the native sort works on a copy of each
     * lane in the native memory scratch gives (bytes, at most once per call): a fault inside native
     * code would end the JVM, where one in Java's copies becomes a SegmentTruncatedException.
     *
     * @throws IllegalArgumentException if the axis is longer than {@link #MAX_LANE}
     */
    public static void sort(ElementType t, MemorySegment s, StridedLayout l, int axis, LongFunction<MemorySegment> scratch) {
        sort(t, s, l, axis, scratch, false);
    }

    /**
     * As {@link #sort(ElementType, MemorySegment, StridedLayout, int, LongFunction)}; with {@code parallel},
     * a lane sorted on the heap (no native sort for it) of at least {@link ParallelLaneSort#MIN_CHUNK}
     * elements is sorted in runs on several threads, then merged ({@link HeapSorts}).
     */
    public static void sort(ElementType t, MemorySegment s, StridedLayout l, int axis, LongFunction<MemorySegment> scratch,
            boolean parallel) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        long len = lanes.length();
        if (len > MAX_LANE) {
            throw new IllegalArgumentException("cannot sort an axis of " + len + " elements: lanes are sorted in a Java array of at most "
                    + MAX_LANE + " elements; sort a reshaped view with shorter lanes");
        }
        int n = (int) len;
        long stride = lanes.stride();
        int type = stride == 1 ? nativeType(t) : 0;
        long size = t.itemSize();
        MemorySegment copy = type != 0 && scratch != null ? scratch.apply(n * size) : null;
        // a heap segment (a small array, or a small scratch) goes the heap way
        boolean nativeWay = type != 0 && (copy == null ? s : copy).isNative();
        long[][] keys = !nativeWay && stride == 1 && size == 8 ? RadixSort.scratch(n, 2) : null;
        if (nativeWay) {
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    MemorySegment lane = s.asSlice((off + j * is) * size, n * size);
                    if (copy == null) {
                        sortInPlace(t, type, lane, n);
                    } else {
                        copy.copyFrom(lane);
                        sortInPlace(t, type, copy, n);
                        lane.copyFrom(copy);
                    }
                }
            });
        } else if (keys != null) {
            RadixSort.Kind kind = t == ElementType.F64 ? RadixSort.Kind.F64 : t.isUnsigned64() ? RadixSort.Kind.UNSIGNED : RadixSort.Kind.SIGNED;
            int parts = parallel ? HeapSorts.parts() : 1;
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    RadixSort.sortWide(kind, s, off + j * is, n, keys[0], keys[1], parts);
                }
            });
        } else if (t.isFloatingPoint()) {
            double[] lane = new double[n];
            boolean split = parallel && n >= ParallelLaneSort.MIN_CHUNK;
            long[][] laneKeys = split ? null : RadixSort.scratch(n, 2);
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    long first = off + j * is;
                    Blocks.load(t, s, first, stride, n, lane);
                    if (split) {
                        HeapSorts.sort(lane, HeapSorts.parts());
                    } else if (laneKeys != null) {
                        RadixSort.sort(lane, 0, n, laneKeys[0], laneKeys[1]);
                    } else {
                        Arrays.sort(lane);
                    }
                    Blocks.store(t, s, first, stride, n, lane);
                }
            });
        } else {
            long[] lane = new long[n];
            long flip = t.isUnsigned64() ? Long.MIN_VALUE : 0;
            boolean split = parallel && n >= ParallelLaneSort.MIN_CHUNK;
            long[][] tmp = split ? null : RadixSort.scratch(n, 1);
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    long first = off + j * is;
                    Blocks.load(t, s, first, stride, n, lane);
                    if (flip != 0) {
                        flip(lane, flip);
                        heapSort(lane, split, tmp);
                        flip(lane, flip);
                    } else {
                        heapSort(lane, split, tmp);
                    }
                    Blocks.store(t, s, first, stride, n, lane);
                }
            });
        }
    }

    private static void heapSort(long[] lane, boolean parallel, long[][] tmp) {
        if (parallel) {
            HeapSorts.sort(lane, HeapSorts.parts());
        } else if (tmp != null) {
            RadixSort.sort(lane, 0, lane.length, tmp[0]);
        } else {
            Arrays.sort(lane);
        }
    }

    /** The basic type code {@link JdkSimdSort} sorts t's elements as, or 0 if it does not. */
    static int nativeType(ElementType t) {
        int type = switch (t) {
            case F64 -> JdkSimdSort.DOUBLE;
            case F32 -> JdkSimdSort.FLOAT;
            case I64, U64 -> JdkSimdSort.LONG;
            case I32, U32 -> JdkSimdSort.INT;
            default -> 0;
        };
        return type != 0 && JdkSimdSort.sorts(type) ? type : 0;
    }

    /**
     * Sorts the n elements of lane with the native sort: NaNs moved past it and -0.0 counted as
     * 0.0 before (its min/max networks lose values around a NaN and may turn -0.0 and 0.0 into
     * two of one), the -0.0s put back first among the zeros after; unsigned values flipped.
     */
    private static void sortInPlace(ElementType t, int type, MemorySegment lane, int n) {
        switch (t) {
            case F64 -> {
                long kept = nansLastF64(lane, n);
                int m = (int) kept;
                JdkSimdSort.sort(lane, type, 0, m);
                negativeZerosFirstF64(lane, m, (int) (kept >>> 32));
            }
            case F32 -> {
                long kept = nansLastF32(lane, n);
                int m = (int) kept;
                JdkSimdSort.sort(lane, type, 0, m);
                negativeZerosFirstF32(lane, m, (int) (kept >>> 32));
            }
            case U64 -> {
                flipLongs(lane, n);
                JdkSimdSort.sort(lane, type, 0, n);
                flipLongs(lane, n);
            }
            case U32 -> {
                flipInts(lane, n);
                JdkSimdSort.sort(lane, type, 0, n);
                flipInts(lane, n);
            }
            default -> JdkSimdSort.sort(lane, type, 0, n);
        }
    }

    /**
     * Moves the NaNs of lane to its end and turns its -0.0s into 0.0: returns the count of
     * elements that are not NaN in the low 32 bits and of the -0.0s in the high 32 bits.
     */
    static long nansLastF64(MemorySegment lane, int n) {
        int first = 0;
        // a branch-free pass per block finds the (usually absent) first NaN or -0.0 at memory speed
        while (first < n) {
            int end = Math.min(n, first + Blocks.SIZE);
            boolean hit = false;
            for (int i = first; i < end; i++) {
                long x = lane.getAtIndex(JAVA_LONG, i);
                hit |= (x & Long.MAX_VALUE) > 0x7ff0000000000000L | x == Long.MIN_VALUE;
            }
            if (hit) {
                break;
            }
            first = end;
        }
        int high = n;
        int negativeZeros = 0;
        for (int k = n; k > first; ) {
            long x = lane.getAtIndex(JAVA_LONG, --k);
            if (x == Long.MIN_VALUE) {
                negativeZeros++;
                lane.setAtIndex(JAVA_LONG, k, 0L);
            } else if ((x & Long.MAX_VALUE) > 0x7ff0000000000000L) {
                lane.setAtIndex(JAVA_LONG, k, lane.getAtIndex(JAVA_LONG, --high));
                lane.setAtIndex(JAVA_LONG, high, x);
            }
        }
        return (long) negativeZeros << 32 | high;
    }

    static long nansLastF32(MemorySegment lane, int n) {
        int first = 0;
        while (first < n) {
            int end = Math.min(n, first + Blocks.SIZE);
            boolean hit = false;
            for (int i = first; i < end; i++) {
                int x = lane.getAtIndex(JAVA_INT, i);
                hit |= (x & Integer.MAX_VALUE) > 0x7f800000 | x == Integer.MIN_VALUE;
            }
            if (hit) {
                break;
            }
            first = end;
        }
        int high = n;
        int negativeZeros = 0;
        for (int k = n; k > first; ) {
            int x = lane.getAtIndex(JAVA_INT, --k);
            if (x == Integer.MIN_VALUE) {
                negativeZeros++;
                lane.setAtIndex(JAVA_INT, k, 0);
            } else if ((x & Integer.MAX_VALUE) > 0x7f800000) {
                lane.setAtIndex(JAVA_INT, k, lane.getAtIndex(JAVA_INT, --high));
                lane.setAtIndex(JAVA_INT, high, x);
            }
        }
        return (long) negativeZeros << 32 | high;
    }

    /** In the sorted, NaN-free first m elements, makes the first {@code negative} of the zeros -0.0. */
    static void negativeZerosFirstF64(MemorySegment lane, int m, int negative) {
        if (negative == 0) {
            return;
        }
        int lo = 0;
        int hi = m;
        while (lo < hi) { // the first element not below zero
            int mid = (lo + hi) >>> 1;
            if (lane.getAtIndex(JAVA_DOUBLE, mid) < 0.0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int i = lo; i < lo + negative; i++) {
            lane.setAtIndex(JAVA_LONG, i, Long.MIN_VALUE);
        }
    }

    static void negativeZerosFirstF32(MemorySegment lane, int m, int negative) {
        if (negative == 0) {
            return;
        }
        int lo = 0;
        int hi = m;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (lane.getAtIndex(JAVA_FLOAT, mid) < 0.0f) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int i = lo; i < lo + negative; i++) {
            lane.setAtIndex(JAVA_INT, i, Integer.MIN_VALUE);
        }
    }

    /** Unsigned values xor the sign bit order as signed values in the unsigned order. */
    static void flipLongs(MemorySegment lane, int n) {
        for (int i = 0; i < n; i++) {
            lane.setAtIndex(JAVA_LONG, i, lane.getAtIndex(JAVA_LONG, i) ^ Long.MIN_VALUE);
        }
    }

    static void flipInts(MemorySegment lane, int n) {
        for (int i = 0; i < n; i++) {
            lane.setAtIndex(JAVA_INT, i, lane.getAtIndex(JAVA_INT, i) ^ Integer.MIN_VALUE);
        }
    }

    /** U64 bits xor the sign bit order as signed longs in the unsigned order. */
    private static void flip(long[] a, long flip) {
        for (int i = 0; i < a.length; i++) {
            a[i] ^= flip;
        }
    }
}
