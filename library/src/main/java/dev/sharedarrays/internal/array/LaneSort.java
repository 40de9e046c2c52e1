package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.JdkSimdSort;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Sorts every lane of one axis in place, ascending. A contiguous lane of 32- or 64-bit elements
 * is sorted where it lies by the JDK's AVX-512 quicksort ({@link JdkSimdSort}) where that is
 * available; any other lane is copied to a heap array, sorted with {@link Arrays#sort} and
 * copied back. Floats
 * order as numpy's sort does: NaNs last (and -0.0 before 0.0, which numpy leaves in any order);
 * unsigned types by value (U64 past 2^63 too).
 */
public final class LaneSort {
    /** The longest lane a Java array holds. */
    static final long MAX_LANE = Integer.MAX_VALUE - 8;

    private LaneSort() {
    }

    /**
     * Sorts the lanes of {@code axis} (checked) of layout l.
     *
     * @throws IllegalArgumentException if the axis is longer than {@link #MAX_LANE}
     */
    public static void sort(ElementType t, MemorySegment s, StridedLayout l, int axis) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        long len = lanes.length();
        if (len > MAX_LANE) {
            throw new IllegalArgumentException("cannot sort an axis of " + len + " elements: lanes are sorted in a Java array of at most "
                    + MAX_LANE + " elements; sort a reshaped view with shorter lanes");
        }
        int n = (int) len;
        long stride = lanes.stride();
        if (stride == 1 && s.isNative() && nativeType(t) != 0) {
            int type = nativeType(t);
            long size = t.itemSize();
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    sortInPlace(t, type, s.asSlice((off + j * is) * size, n * size), n);
                }
            });
        } else if (t.isFloatingPoint()) {
            double[] lane = new double[n];
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    long first = off + j * is;
                    Blocks.load(t, s, first, stride, n, lane);
                    Arrays.sort(lane);
                    Blocks.store(t, s, first, stride, n, lane);
                }
            });
        } else {
            long[] lane = new long[n];
            long flip = t.isUnsigned64() ? Long.MIN_VALUE : 0;
            lanes.rows((off, is, count) -> {
                for (long j = 0; j < count; j++) {
                    long first = off + j * is;
                    Blocks.load(t, s, first, stride, n, lane);
                    if (flip != 0) {
                        flip(lane, flip);
                        Arrays.sort(lane);
                        flip(lane, flip);
                    } else {
                        Arrays.sort(lane);
                    }
                    Blocks.store(t, s, first, stride, n, lane);
                }
            });
        }
    }

    /** The basic type code {@link JdkSimdSort} sorts t's elements as, or 0 if it does not. */
    private static int nativeType(ElementType t) {
        if (!JdkSimdSort.available()) {
            return 0;
        }
        return switch (t) {
            case F64 -> JdkSimdSort.DOUBLE;
            case F32 -> JdkSimdSort.FLOAT;
            case I64, U64 -> JdkSimdSort.LONG;
            case I32, U32 -> JdkSimdSort.INT;
            default -> 0;
        };
    }

    /** Sorts the n elements of lane with the native sort: NaNs moved past it, unsigned values flipped. */
    private static void sortInPlace(ElementType t, int type, MemorySegment lane, int n) {
        switch (t) {
            case F64 -> {
                int m = nansLastF64(lane, n);
                JdkSimdSort.sort(lane, type, 0, m);
                negativeZerosFirstF64(lane, m);
            }
            case F32 -> {
                int m = nansLastF32(lane, n);
                JdkSimdSort.sort(lane, type, 0, m);
                negativeZerosFirstF32(lane, m);
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

    /** Moves the NaNs of lane to its end (payloads kept), returning how many elements are not NaN. */
    private static int nansLastF64(MemorySegment lane, int n) {
        int first = 0;
        // a branch-free pass per block finds the (usually absent) first NaN at memory speed
        while (first < n) {
            int end = Math.min(n, first + Blocks.SIZE);
            boolean nan = false;
            for (int i = first; i < end; i++) {
                double x = lane.getAtIndex(JAVA_DOUBLE, i);
                nan |= x != x;
            }
            if (nan) {
                break;
            }
            first = end;
        }
        int high = n;
        for (int k = n; k > first; ) {
            double x = lane.getAtIndex(JAVA_DOUBLE, --k);
            if (x != x) {
                lane.setAtIndex(JAVA_DOUBLE, k, lane.getAtIndex(JAVA_DOUBLE, --high));
                lane.setAtIndex(JAVA_DOUBLE, high, x);
            }
        }
        return high;
    }

    private static int nansLastF32(MemorySegment lane, int n) {
        int first = 0;
        while (first < n) {
            int end = Math.min(n, first + Blocks.SIZE);
            boolean nan = false;
            for (int i = first; i < end; i++) {
                float x = lane.getAtIndex(JAVA_FLOAT, i);
                nan |= x != x;
            }
            if (nan) {
                break;
            }
            first = end;
        }
        int high = n;
        for (int k = n; k > first; ) {
            float x = lane.getAtIndex(JAVA_FLOAT, --k);
            if (x != x) {
                lane.setAtIndex(JAVA_FLOAT, k, lane.getAtIndex(JAVA_FLOAT, --high));
                lane.setAtIndex(JAVA_FLOAT, high, x);
            }
        }
        return high;
    }

    /** In the sorted, NaN-free first m elements, puts the run of zeros' -0.0s before its 0.0s. */
    private static void negativeZerosFirstF64(MemorySegment lane, int m) {
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
        int end = lo;
        int negative = 0;
        for (; end < m && lane.getAtIndex(JAVA_DOUBLE, end) == 0.0; end++) {
            negative += (int) (Double.doubleToRawLongBits(lane.getAtIndex(JAVA_DOUBLE, end)) >>> 63);
        }
        for (int i = lo; i < end; i++) {
            lane.setAtIndex(JAVA_DOUBLE, i, i < lo + negative ? -0.0 : 0.0);
        }
    }

    private static void negativeZerosFirstF32(MemorySegment lane, int m) {
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
        int end = lo;
        int negative = 0;
        for (; end < m && lane.getAtIndex(JAVA_FLOAT, end) == 0.0f; end++) {
            negative += Float.floatToRawIntBits(lane.getAtIndex(JAVA_FLOAT, end)) >>> 31;
        }
        for (int i = lo; i < end; i++) {
            lane.setAtIndex(JAVA_FLOAT, i, i < lo + negative ? -0.0f : 0.0f);
        }
    }

    /** Unsigned values xor the sign bit order as signed values in the unsigned order. */
    private static void flipLongs(MemorySegment lane, int n) {
        for (int i = 0; i < n; i++) {
            lane.setAtIndex(JAVA_LONG, i, lane.getAtIndex(JAVA_LONG, i) ^ Long.MIN_VALUE);
        }
    }

    private static void flipInts(MemorySegment lane, int n) {
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
