package dev.sharedarrays.internal.array;

/**
 * The lanes of one axis of a layout: the 1-d rows along the axis, one per position of the other
 * axes. {@code rest} is the layout without the axis (shape [1] for a 1-d layout), whose elements
 * are the lanes' first elements. Offsets and strides are in elements.
 *
 * @param length the axis length
 * @param stride the axis stride
 * @param rest the layout of the lanes' first elements
 */
record Lanes(long length, long stride, StridedLayout rest) {
    /** Tests force one way of walking the lanes (true: lane by lane, false: across) to check both; null: choose. */
    private static volatile Boolean forced;

    /**
     * {@code axis} counted from the end if negative, as numpy does.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -ndim || axis >= ndim}
     */
    static int axis(int axis, int ndim) {
        if (axis < -ndim || axis >= ndim) {
            throw new IndexOutOfBoundsException("axis " + axis + " is out of bounds for an array of " + ndim + " dimensions");
        }
        return axis < 0 ? axis + ndim : axis;
    }

    /** The lanes of {@code axis} (already checked by {@link #axis}). */
    static Lanes of(StridedLayout l, int axis) {
        long[] shape = l.shape();
        long[] strides = l.strides();
        if (shape.length == 1) {
            return new Lanes(shape[0], strides[0], new StridedLayout(l.offset(), new long[] {1}, new long[] {0}));
        }
        return new Lanes(shape[axis], strides[axis], new StridedLayout(l.offset(), Shapes.removeAxis(shape, axis),
                Shapes.removeAxis(strides, axis)));
    }

    /** Switches the choice of {@link #alongEachLane()} for tests; returns the previous setting. */
    static Boolean force(Boolean alongEachLane) {
        Boolean before = forced;
        forced = alongEachLane;
        return before;
    }

    /**
     * True if a lane-by-lane walk reads memory in order: the axis is the innermost in memory and
     * long enough to amortise a row kernel call. Otherwise operations walk across the lanes, a
     * block of lanes at a time, one position of the axis after another.
     */
    boolean alongEachLane() {
        Boolean f = forced;
        if (f != null) {
            return f;
        }
        if (rest.size() == 1) {
            return true;
        }
        if (length < 16) {
            return false;
        }
        long[] shape = rest.shape();
        long[] strides = rest.strides();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] > 1 && Math.abs(strides[i]) < Math.abs(stride)) {
                return false;
            }
        }
        return true;
    }

    /** Visits rows of the lanes' first elements. */
    void rows(Loops.RowVisitor v) {
        Loops.rows(rest, 1, v);
    }

    /** Visits rows of the lanes' first elements and, in step, of {@code other} (a layout of rest's shape). */
    void rows(StridedLayout other, Loops.PairVisitor v) {
        Loops.rows(rest, other, 1, v);
    }
}
