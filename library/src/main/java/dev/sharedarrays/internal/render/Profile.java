package dev.sharedarrays.internal.render;

import java.util.Arrays;

/**
 * A 1-D array read into at most {@code columns} columns for a line plot: each column holds the
 * minimum and maximum of the finite elements it covers (NaN if none), so a downsampled plot still
 * shows every spike. Reads in chunks, so a long array costs no large heap copy.
 */
final class Profile {
    private static final int CHUNK = 1 << 20;

    final long length;
    final int columns;
    final double[] low;
    final double[] high;
    /** Over the finite elements; NaN when there are none. */
    double min = Double.NaN;
    double max = Double.NaN;
    long nanCount;
    long infCount;

    private Profile(long length, int maxColumns) {
        this.length = length;
        columns = (int) Math.min(length, maxColumns);
        low = new double[columns];
        high = new double[columns];
        Arrays.fill(low, Double.NaN);
        Arrays.fill(high, Double.NaN);
    }

    boolean downsampled() {
        return columns < length;
    }

    /** Column of element {@code i}: elements spread evenly over the columns. */
    int column(long i) {
        return (int) (i * columns / length);
    }

    static Profile of(Drawable a, int maxColumns) {
        Profile p = new Profile(a.shape()[0], maxColumns);
        for (long i0 = 0; i0 < p.length; i0 += CHUNK) {
            long i1 = Math.min(p.length, i0 + CHUNK);
            double[] v = a.read(i0, i1);
            for (int k = 0; k < v.length; k++) {
                double x = v[k];
                if (Double.isNaN(x)) {
                    p.nanCount++;
                    continue;
                }
                if (Double.isInfinite(x)) {
                    p.infCount++; // off the plot's range; the caption counts them
                    continue;
                }
                int c = p.column(i0 + k);
                if (!(x >= p.low[c])) {
                    p.low[c] = x;
                }
                if (!(x <= p.high[c])) {
                    p.high[c] = x;
                }
                if (!(x >= p.min)) {
                    p.min = x;
                }
                if (!(x <= p.max)) {
                    p.max = x;
                }
            }
        }
        return p;
    }

    /** Where {@code x} lies from min (0) to max (1); 0.5 for a constant array. */
    double position(double x) {
        if (Double.isNaN(min) || max == min) {
            return 0.5;
        }
        return (x - min) / (max - min);
    }
}
