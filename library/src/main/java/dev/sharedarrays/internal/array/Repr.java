package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;

/**
 * The text numpy's {@code str(a)} (array2string with its default options) gives for the same
 * values: nested brackets, elements separated by spaces and padded to one width, lines wrapped
 * at 75 columns, and past 1000 elements only the first and last 3 entries of each axis around
 * "...". Floats are laid out by {@link FloatFormat}; integers are right-aligned.
 */
public final class Repr {
    /** Above this many elements, each axis shows only its first and last {@link #EDGE} entries. */
    public static final long THRESHOLD = 1000;
    public static final int EDGE = 3;
    static final int LINE_WIDTH = 75;

    private Repr() {
    }

    /**
     * The text of the array of this type and shape whose row-major element {@code flat} is
     * element {@code index.applyAsLong(flat)} of {@code d}.
     */
    public static String format(ElementType t, long[] shape, MemorySegment d, LongUnaryOperator index) {
        long size = Shapes.size(shape);
        if (size == 0) {
            return "[]";
        }
        boolean summarise = size > THRESHOLD;
        long[] shown = shown(shape, summarise);
        String[] text = new String[shown.length];
        if (t.isFloatingPoint()) {
            double[] values = new double[shown.length];
            for (int i = 0; i < shown.length; i++) {
                values[i] = ElementCodec.getDouble(t, d, index.applyAsLong(shown[i]));
            }
            FloatFormat f = new FloatFormat(values, t == ElementType.F32);
            for (int i = 0; i < shown.length; i++) {
                text[i] = f.format(values[i]);
            }
        } else {
            int width = t == ElementType.BOOL ? 5 : 0; // numpy's BoolFormat: " True" beside "False", always
            for (int i = 0; i < shown.length; i++) {
                text[i] = ElementCodec.format(t, d, index.applyAsLong(shown[i]));
                width = Math.max(width, text[i].length());
            }
            for (int i = 0; i < shown.length; i++) {
                text[i] = " ".repeat(width - text[i].length()) + text[i];
            }
        }
        return layout(shape, summarise, flat -> text[Arrays.binarySearch(shown, flat)]);
    }

    /** The row-major flat indices that are printed, ascending. */
    static long[] shown(long[] shape, boolean summarise) {
        long n = 1;
        for (long dim : shape) {
            n *= summarise && dim > 2L * EDGE ? 2L * EDGE : dim;
        }
        long[] out = new long[(int) n];
        collect(shape, 0, 0, summarise, out, new int[1]);
        return out;
    }

    private static void collect(long[] shape, int axis, long base, boolean summarise, long[] out, int[] next) {
        if (axis == shape.length) {
            out[next[0]++] = base;
            return;
        }
        long n = shape[axis];
        long inner = Shapes.size(Arrays.copyOfRange(shape, axis + 1, shape.length));
        for (long i = 0; i < n; i++) {
            if (summarise && n > 2L * EDGE && i == EDGE) {
                i = n - EDGE;
            }
            collect(shape, axis + 1, base + i * inner, summarise, out, next);
        }
    }

    /** arrayprint._formatArray with separator ' ' and no prefix: the brackets, line breaks and wrapping. */
    static String layout(long[] shape, boolean summarise, LongFunction<String> element) {
        return new Object() {
            String recurse(int axis, long base, String hangingIndent, int width) {
                if (axis == shape.length) {
                    return element.apply(base);
                }
                String nextIndent = hangingIndent + " ";
                int nextWidth = width - 1;
                long n = shape[axis];
                long inner = Shapes.size(Arrays.copyOfRange(shape, axis + 1, shape.length));
                boolean summary = summarise && n > 2L * EDGE;
                long leading = summary ? EDGE : 0;
                long trailing = summary ? EDGE : n;
                StringBuilder s = new StringBuilder();
                if (axis == shape.length - 1) {
                    StringBuilder line = new StringBuilder(hangingIndent);
                    int elementWidth = width - 1;
                    for (long i = 0; i < leading; i++) {
                        extend(s, line, recurse(axis + 1, base + i * inner, nextIndent, nextWidth), elementWidth, hangingIndent);
                        line.append(' ');
                    }
                    if (summary) {
                        extend(s, line, "...", elementWidth, hangingIndent);
                        line.append(' ');
                    }
                    for (long i = n - trailing; i < n - 1; i++) {
                        extend(s, line, recurse(axis + 1, base + i * inner, nextIndent, nextWidth), elementWidth, hangingIndent);
                        line.append(' ');
                    }
                    extend(s, line, recurse(axis + 1, base + (n - 1) * inner, nextIndent, nextWidth), elementWidth, hangingIndent);
                    s.append(line);
                } else {
                    String lineSeparator = "\n".repeat(shape.length - 1 - axis);
                    for (long i = 0; i < leading; i++) {
                        s.append(hangingIndent).append(recurse(axis + 1, base + i * inner, nextIndent, nextWidth)).append(lineSeparator);
                    }
                    if (summary) {
                        s.append(hangingIndent).append("...").append(lineSeparator);
                    }
                    for (long i = n - trailing; i < n - 1; i++) {
                        s.append(hangingIndent).append(recurse(axis + 1, base + i * inner, nextIndent, nextWidth)).append(lineSeparator);
                    }
                    s.append(hangingIndent).append(recurse(axis + 1, base + (n - 1) * inner, nextIndent, nextWidth));
                }
                return "[" + s.substring(hangingIndent.length()) + "]";
            }
        }.recurse(0, 0, " ", LINE_WIDTH);
    }

    /** arrayprint._extendLine: starts a new line when the word would pass the width, unless the line holds only the indent. */
    private static void extend(StringBuilder s, StringBuilder line, String word, int width, String nextLinePrefix) {
        if (line.length() + word.length() > width && line.length() > nextLinePrefix.length()) {
            int end = line.length();
            while (end > 0 && line.charAt(end - 1) == ' ') {
                end--;
            }
            s.append(line, 0, end).append('\n');
            line.setLength(0);
            line.append(nextLinePrefix);
        }
        line.append(word);
    }
}
