package dev.sharedarrays.internal.array;

import dev.sharedarrays.ShapeMismatchException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Shapes of numpy's concatenate and stack, checked: where each input goes in the result is a
 * slice (concatenate) or an index (stack) of the result's {@code axis}.
 */
public final class Joining {
    private Joining() {
    }

    /**
     * The checked axis (negative counts from the end) and result shape of concatenating arrays of
     * these shapes along {@code axis}: equal but for that axis, whose lengths add up.
     *
     * @param shape the result's shape
     * @param axis the axis, in [0, ndim)
     */
    public record Joined(long[] shape, int axis) {
    }

    /**
     * numpy's concatenate.
     *
     * @throws IllegalArgumentException if {@code shapes.isEmpty()}
     * @throws ShapeMismatchException naming every shape if their dimensions differ other than along the axis
     * @throws IndexOutOfBoundsException if the axis is outside the arrays' dimensions
     */
    public static Joined concatenate(List<long[]> shapes, int axis) {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("concatenate needs at least one array");
        }
        long[] first = shapes.get(0);
        for (long[] s : shapes) {
            if (s.length != first.length) {
                throw new ShapeMismatchException("cannot concatenate shapes " + list(shapes) + ": the arrays have different numbers "
                        + "of dimensions (" + first.length + " and " + s.length + ")");
            }
        }
        int a = Lanes.axis(axis, first.length);
        long[] out = first.clone();
        out[a] = 0;
        for (long[] s : shapes) {
            for (int i = 0; i < s.length; i++) {
                if (i != a && s[i] != first[i]) {
                    throw new ShapeMismatchException("cannot concatenate shapes " + list(shapes) + " along axis " + a + ": axis " + i
                            + " differs (" + first[i] + " vs " + s[i] + "); every axis but the joined one must match");
                }
            }
            out[a] = Math.addExact(out[a], s[a]);
        }
        return new Joined(out, a);
    }

    /**
     * numpy's stack: arrays of one shape along a new axis {@code axis} of the result (negative
     * counts from the end of the result's axes).
     *
     * @throws IllegalArgumentException if {@code shapes.isEmpty()} or the result would have more than
     *         {@link Shapes#MAX_DIMS} dimensions
     * @throws ShapeMismatchException naming every shape if they are not all equal
     * @throws IndexOutOfBoundsException if {@code axis < -(ndim + 1) || axis > ndim}
     */
    public static Joined stack(List<long[]> shapes, int axis) {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("stack needs at least one array");
        }
        long[] first = shapes.get(0);
        for (long[] s : shapes) {
            if (!Arrays.equals(s, first)) {
                throw new ShapeMismatchException("cannot stack shapes " + list(shapes) + ": all arrays need the same shape");
            }
        }
        if (first.length + 1 > Shapes.MAX_DIMS) {
            throw new IllegalArgumentException("stacking arrays of " + first.length + " dimensions would give " + (first.length + 1)
                    + "; arrays have at most " + Shapes.MAX_DIMS);
        }
        int a = Lanes.axis(axis, first.length + 1);
        long[] out = new long[first.length + 1];
        for (int i = 0, j = 0; i < out.length; i++) {
            out[i] = i == a ? shapes.size() : first[j++];
        }
        return new Joined(out, a);
    }

    private static String list(List<long[]> shapes) {
        return shapes.stream().map(Arrays::toString).collect(Collectors.joining(", "));
    }
}
