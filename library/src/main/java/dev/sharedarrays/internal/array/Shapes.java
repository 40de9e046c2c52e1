package dev.sharedarrays.internal.array;

import dev.sharedarrays.ShapeMismatchException;
import java.util.Arrays;

/** Shape arithmetic: element counts, dropping an axis, reshape with an inferred dimension. */
public final class Shapes {
    /** Arrays have 1 to this many dimensions. */
    public static final int MAX_DIMS = 8;

    private Shapes() {
    }

    /** The number of elements of a shape (its dimensions are >= 1 and their product fits a long). */
    public static long size(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /**
     * The shape two operands broadcast to, by numpy's rule: align the trailing axes; each pair of
     * dimensions must be equal or one of them 1.
     *
     * @throws ShapeMismatchException naming both shapes if they do not broadcast
     */
    public static long[] broadcast(long[] a, long[] b) {
        int n = Math.max(a.length, b.length);
        long[] out = new long[n];
        for (int i = 1; i <= n; i++) {
            long x = i <= a.length ? a[a.length - i] : 1;
            long y = i <= b.length ? b[b.length - i] : 1;
            if (x != y && x != 1 && y != 1) {
                throw new ShapeMismatchException("shapes " + Arrays.toString(a) + " and " + Arrays.toString(b)
                        + " do not broadcast: axis " + (n - i) + " of the result would be " + x + " and " + y
                        + " (numpy's rule: trailing dimensions equal or 1)");
            }
            out[n - i] = x == 1 ? y : x;
        }
        return out;
    }

    /** The shape without axis {@code axis}. */
    public static long[] removeAxis(long[] shape, int axis) {
        long[] out = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i != axis) {
                out[j++] = shape[i];
            }
        }
        return out;
    }

    /**
     * The shape {@code newShape} asks for an array of {@code size} elements and shape
     * {@code shape}, with a -1 dimension inferred.
     *
     * @throws IllegalArgumentException if a dimension is {@code < 1} (other than one -1), or
     *         {@code newShape.length < 1 || newShape.length > MAX_DIMS}
     * @throws ShapeMismatchException if the element counts differ
     */
    public static long[] reshape(long[] shape, long size, long[] newShape) {
        long[] s = newShape.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == -1 && infer < 0) {
                infer = i;
            } else if (s[i] < 1) {
                throw new IllegalArgumentException("reshape to " + Arrays.toString(newShape) + ": dimension " + i + " is " + s[i]
                        + "; dimensions are >= 1, or one of them -1");
            } else {
                known = Math.multiplyExact(known, s[i]);
            }
        }
        if (infer >= 0 && known > 0 && size % known == 0) {
            s[infer] = size / known;
            known = size;
        }
        if (s.length < 1 || s.length > MAX_DIMS) {
            throw new IllegalArgumentException("reshape to " + Arrays.toString(newShape) + ": arrays have 1 to " + MAX_DIMS + " dimensions");
        }
        if (known != size) {
            throw new ShapeMismatchException("cannot reshape an array of size " + size + " (shape " + Arrays.toString(shape)
                    + ") into shape " + Arrays.toString(newShape));
        }
        return s;
    }
}
