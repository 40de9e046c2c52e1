package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Sorts every lane of one axis in place, ascending: each lane is copied to a heap array, sorted
 * with {@link Arrays#sort} (the JDK's SIMD sort where the CPU has one) and copied back. Floats
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
        if (t.isFloatingPoint()) {
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

    /** U64 bits xor the sign bit order as signed longs in the unsigned order. */
    private static void flip(long[] a, long flip) {
        for (int i = 0; i < a.length; i++) {
            a[i] ^= flip;
        }
    }
}
