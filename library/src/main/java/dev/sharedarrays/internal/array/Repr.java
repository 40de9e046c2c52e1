package dev.sharedarrays.internal.array;

import java.util.function.LongFunction;

/** numpy-style text of an N-d array, eliding the middle of each axis for large arrays. */
public final class Repr {
    /** Above this many elements, each axis shows only its first and last {@link #EDGE} entries. */
    public static final long THRESHOLD = 1000;
    public static final int EDGE = 3;

    private Repr() {
    }

    /** The nested-bracket text of an array of this shape; element(flat) gives one row-major element. */
    public static String format(long[] shape, LongFunction<String> element) {
        long size = 1;
        for (long d : shape) {
            size *= d;
        }
        StringBuilder sb = new StringBuilder();
        append(sb, shape, 0, 0, element, size > THRESHOLD);
        return sb.toString();
    }

    private static void append(StringBuilder sb, long[] shape, int axis, long base, LongFunction<String> element, boolean elide) {
        long n = shape[axis];
        long inner = 1;
        for (int i = axis + 1; i < shape.length; i++) {
            inner *= shape[i];
        }
        sb.append('[');
        for (long i = 0; i < n; i++) {
            if (elide && n > 2 * EDGE && i == EDGE) {
                sb.append("...");
                i = n - EDGE - 1;
                separator(sb, shape, axis);
                continue;
            }
            if (axis == shape.length - 1) {
                sb.append(element.apply(base + i));
            } else {
                append(sb, shape, axis + 1, base + i * inner, element, elide);
            }
            if (i < n - 1) {
                separator(sb, shape, axis);
            }
        }
        sb.append(']');
    }

    private static void separator(StringBuilder sb, long[] shape, int axis) {
        sb.append(',');
        if (axis == shape.length - 1) {
            sb.append(' ');
        } else {
            sb.append("\n".repeat(shape.length - 1 - axis)).append(" ".repeat(axis + 1));
        }
    }
}
