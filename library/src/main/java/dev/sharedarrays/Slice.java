package dev.sharedarrays;

/**
 * One axis of a view, as in numpy's {@code a[start:stop:step]} or {@code a[i]}. Immutable.
 *
 * <p>Bounds follow Python: negative values count from the end, bounds past the axis are
 * clipped, a negative step walks backwards. An {@link #index} selects one position and drops
 * the axis from the view.
 */
public final class Slice {
    private static final Slice ALL = new Slice(Long.MIN_VALUE, Long.MAX_VALUE, 1, false);

    private final long start;
    private final long stop;
    private final long step;
    private final boolean index;

    private Slice(long start, long stop, long step, boolean index) {
        this.start = start;
        this.stop = stop;
        this.step = step;
        this.index = index;
    }

    /** The whole axis, {@code :}. */
    public static Slice all() {
        return ALL;
    }

    /** {@code start:stop}. */
    public static Slice of(long start, long stop) {
        return new Slice(start, stop, 1, false);
    }

    /**
     * {@code start:stop:step}.
     *
     * @throws IllegalArgumentException if {@code step == 0}
     */
    public static Slice of(long start, long stop, long step) {
        if (step == 0) {
            throw new IllegalArgumentException("slice step must not be 0");
        }
        return new Slice(start, stop, step, false);
    }

    /** {@code start:}. */
    public static Slice from(long start) {
        return new Slice(start, Long.MAX_VALUE, 1, false);
    }

    /** {@code :stop}. */
    public static Slice until(long stop) {
        return new Slice(Long.MIN_VALUE, stop, 1, false);
    }

    /**
     * {@code ::step}, such as {@code every(2)} or {@code every(-1)} (reversed).
     *
     * @throws IllegalArgumentException if {@code step == 0}
     */
    public static Slice every(long step) {
        if (step == 0) {
            throw new IllegalArgumentException("slice step must not be 0");
        }
        return new Slice(Long.MIN_VALUE, Long.MAX_VALUE, step, false);
    }

    /** One position; the axis disappears from the view. */
    public static Slice index(long i) {
        return new Slice(i, i, 0, true);
    }

    /** Start, or {@link Long#MIN_VALUE} for "from the beginning" (the end, for negative steps). */
    public long start() {
        return start;
    }

    /** Stop (exclusive), or {@link Long#MAX_VALUE} for "to the end". */
    public long stop() {
        return stop;
    }

    public long step() {
        return step;
    }

    public boolean isIndex() {
        return index;
    }

    @Override
    public String toString() {
        if (index) {
            return Long.toString(start);
        }
        String a = start == Long.MIN_VALUE ? "" : Long.toString(start);
        String b = stop == Long.MAX_VALUE ? "" : Long.toString(stop);
        return a + ":" + b + (step == 1 ? "" : ":" + step);
    }
}
