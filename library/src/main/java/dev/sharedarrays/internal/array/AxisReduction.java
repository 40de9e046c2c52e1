package dev.sharedarrays.internal.array;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Reduces an array along one axis: the axis is moved last, so that each output element
 * reduces one (strided) row of the input with the whole-layout reductions of {@link Loops}.
 */
public final class AxisReduction {
    private AxisReduction() {
    }

    /**
     * The shape of the result: the input shape without {@code axis} ([1] for a 1-d input).
     *
     * @throws IndexOutOfBoundsException if {@code axis < 0 || axis >= shape.length}
     */
    public static long[] outShape(long[] shape, int axis) {
        if (axis < 0 || axis >= shape.length) {
            throw new IndexOutOfBoundsException("axis " + axis + " is out of bounds for an array of " + shape.length + " dimensions");
        }
        return shape.length == 1 ? new long[] {1} : Shapes.removeAxis(shape, axis);
    }

    /** The element type of the result: F64 for SUM (and mean), the input's type for MIN and MAX. */
    public static ElementType outType(ElementType t, Op op) {
        return op == Op.SUM ? ElementType.F64 : t;
    }

    /**
     * Reduces {@code in} (type t, layout l) along {@code axis} into the contiguous {@code out}
     * of {@link #outType} and {@link #outShape}; {@code mean} divides sums by the axis length.
     */
    public static void reduce(ElementType t, Op op, boolean mean, MemorySegment in, StridedLayout l, int axis, MemorySegment out) {
        int nd = l.ndim();
        long len = l.shape()[axis];
        int[] perm = new int[nd];
        for (int i = 0, j = 0; i < nd; i++) {
            if (i != axis) {
                perm[j++] = i;
            }
        }
        perm[nd - 1] = axis;
        StridedLayout moved = l.transpose(perm);
        long stride = moved.strides()[nd - 1];
        StridedLayout outer = nd == 1 ? new StridedLayout(moved.offset(), new long[] {1}, new long[] {0})
                : new StridedLayout(moved.offset(), Arrays.copyOf(moved.shape(), nd - 1), Arrays.copyOf(moved.strides(), nd - 1));
        long outSize = outer.size();
        ElementType ot = outType(t, op);
        for (long k = 0; k < outSize; k++) {
            StridedLayout row = new StridedLayout(outer.offsetOfFlat(k), new long[] {len}, new long[] {stride});
            if (t.isFloatingPoint()) {
                double r = Loops.reduceFloat(t, op, in, row);
                if (op == Op.SUM) {
                    out.setAtIndex(JAVA_DOUBLE, k, mean ? r / len : r);
                } else {
                    ElementCodec.setDouble(ot, out, k, r);
                }
            } else {
                long r = Loops.reduceInt(t, op, in, row);
                if (op == Op.SUM) {
                    double v = ElementCodec.longToDouble(t, r);
                    out.setAtIndex(JAVA_DOUBLE, k, mean ? v / len : v);
                } else {
                    ElementCodec.setLong(ot, out, k, r);
                }
            }
        }
    }
}
