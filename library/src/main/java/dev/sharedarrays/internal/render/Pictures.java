package dev.sharedarrays.internal.render;

import java.util.ArrayList;
import java.util.List;

/**
 * Which picture an array gets: a heat map for 2-D, a line plot for 1-D, black and white for a Bool
 * mask (a 1-D mask as a one-row strip). Axes of length 1 are dropped first, so (1, 100, 100) is
 * drawn as (100, 100).
 */
public final class Pictures {
    private Pictures() {
    }

    /**
     * Refuses clearly, before a class that needs {@code java.desktop} loads, when this runtime has
     * no such module: a jlink image without it, or an application on the module path that does
     * not add it (the library requires it only for pictures).
     */
    public static void requireDesktop() {
        if (ModuleLayer.boot().findModule("java.desktop").isEmpty()) {
            throw new UnsupportedOperationException("toPng draws with java.awt and javax.imageio, and this runtime has"
                    + " no java.desktop module: run on a JDK or an image that has it (jlink --add-modules java.desktop),"
                    + " and on the module path add it (--add-modules java.desktop)");
        }
    }

    /** True if {@link #of} can draw {@code a}: at most two axes longer than 1. */
    public static boolean drawable(Drawable a) {
        int longer = 0;
        for (long n : a.shape()) {
            if (n > 1) {
                longer++;
            }
        }
        return longer <= 2;
    }

    /** The PNG of {@code a}'s picture; a clear error first if java.desktop is missing. */
    public static byte[] png(Drawable a) {
        requireDesktop();
        return of(a).png();
    }

    /**
     * The picture of {@code a}.
     *
     * @throws IllegalArgumentException if {@code a} has more than two axes longer than 1
     */
    public static Picture of(Drawable a) {
        String header = a.dtypeName() + " " + shape(a.shape());
        if (!drawable(a)) {
            throw new IllegalArgumentException("toPng draws 1-D and 2-D arrays, not " + header
                    + ": select a 2-D part first, e.g. a.select(0, 0)");
        }
        Drawable v = a;
        while (v.shape().length > 2) {
            long[] s = v.shape();
            int axis = 0;
            while (s[axis] != 1) {
                axis++;
            }
            v = v.select(axis, 0);
        }
        boolean mask = v.isBool();
        List<String> caption = new ArrayList<>();
        caption.add(header);
        if (v.shape().length == 1 && !mask) {
            Profile p = Profile.of(v, LinePlot.WIDTH);
            if (p.nanCount > 0 || p.infCount > 0) {
                caption.set(0, header + nonFinite(p.nanCount, "NaN (gaps)", p.infCount, "infinite (off the plot)"));
            }
            if (p.downsampled()) {
                caption.add("downsampled " + p.length + " -> " + p.columns + " columns (min to max of each)");
            }
            return LinePlot.draw(p, caption, low(v, p.min), high(v, p.max));
        }
        // a 1-D mask is a one-row strip
        Grid g = Grid.of(v);
        long size = g.rows * g.cols;
        if (mask) {
            long trues = (long) v.sum();
            caption.set(0, header + ": " + String.format("%,d", trues) + " of " + String.format("%,d", size)
                    + " true (white)");
        } else if (g.nanCount > 0 || g.posInfCount + g.negInfCount > 0) {
            caption.set(0, header + nonFinite(g.nanCount, "NaN (grey)", g.posInfCount + g.negInfCount,
                    "infinite (ends of the scale)"));
        }
        if (g.downsampled() && !mask) {
            // the colour bar spans the block means the pixels show; the elements' own range is in the caption
            caption.add("downsampled " + g.rows + "x" + g.cols + " -> " + g.height + "x" + g.width + " (mean of each "
                    + g.rowBlock + "x" + g.colBlock + " block; colours span the means)");
            caption.add("elements from " + low(v, g.min) + " to " + high(v, g.max));
            return HeatMap.draw(g, caption, Text.number(g.scaleMin), Text.number(g.scaleMax), false);
        }
        if (g.downsampled()) {
            caption.add("downsampled " + g.rows + "x" + g.cols + " -> " + g.height + "x" + g.width + " (mean of each "
                    + g.rowBlock + "x" + g.colBlock + " block)");
        }
        return HeatMap.draw(g, caption, low(v, g.min), high(v, g.max), mask);
    }

    private static String nonFinite(long nan, String nanText, long inf, String infText) {
        StringBuilder b = new StringBuilder();
        if (nan > 0) {
            b.append(", ").append(String.format("%,d", nan)).append(' ').append(nanText);
        }
        if (inf > 0) {
            b.append(", ").append(String.format("%,d", inf)).append(' ').append(infText);
        }
        return b.toString();
    }

    /** The exact minimum for integer types (a double would round past 2^53), else the finite one read. */
    private static String low(Drawable a, double finiteMin) {
        if (a.isFloatingPoint() || a.isBool()) {
            return Text.number(finiteMin);
        }
        return integer(a, a.minAsLong());
    }

    private static String high(Drawable a, double finiteMax) {
        if (a.isFloatingPoint() || a.isBool()) {
            return Text.number(finiteMax);
        }
        return integer(a, a.maxAsLong());
    }

    private static String integer(Drawable a, long v) {
        return a.isUnsignedLong() ? Long.toUnsignedString(v) : Long.toString(v);
    }

    /** numpy's way: (3, 4), and (5,) for one axis. */
    static String shape(long[] shape) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            b.append(i == 0 ? "" : ", ").append(shape[i]);
        }
        return b.append(shape.length == 1 ? ",)" : ")").toString();
    }
}
