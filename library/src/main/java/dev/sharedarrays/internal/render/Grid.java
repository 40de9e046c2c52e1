package dev.sharedarrays.internal.render;


/**
 * A 2-D array read into at most {@link #MAX_CELLS} x {@link #MAX_CELLS} cells: each cell is the
 * mean of the finite elements of its block of rows x columns (NaN if the block has none), so a
 * large array is drawn from every element, not from a sample. Infinities count for the range
 * (as the ends of the scale) but not for means. Reads one row at a time, in chunks, so a large
 * array costs no large heap copy.
 */
final class Grid {
    static final int MAX_CELLS = 800;
    private static final int CHUNK = 1 << 20;

    final long rows;
    final long cols;
    /** Source rows and columns per cell. */
    final long rowBlock;
    final long colBlock;
    final int height;
    final int width;
    final double[] cells;
    /** Over the finite elements; NaN when there are none. */
    double min = Double.NaN;
    double max = Double.NaN;
    /**
     * The ends of the colour scale: the elements' min and max, or, for a downsampled grid, the
     * min and max of its finite cells (block means): pixels and colour bar then agree, and a noisy
     * array whose block means vary little is not drawn flat against its extremes.
     */
    double scaleMin = Double.NaN;
    double scaleMax = Double.NaN;
    long nanCount;
    long posInfCount;
    long negInfCount;

    private Grid(long rows, long cols) {
        this.rows = rows;
        this.cols = cols;
        rowBlock = ceilDiv(rows, MAX_CELLS);
        colBlock = ceilDiv(cols, MAX_CELLS);
        height = (int) ceilDiv(rows, rowBlock);
        width = (int) ceilDiv(cols, colBlock);
        cells = new double[height * width];
    }

    boolean downsampled() {
        return rowBlock > 1 || colBlock > 1;
    }

    /** The grid of a 2-D array (a view is fine), or of a 1-D one as one row. */
    static Grid of(Drawable a) {
        long[] shape = a.shape();
        boolean strip = shape.length == 1;
        Grid g = strip ? new Grid(1, shape[0]) : new Grid(shape[0], shape[1]);
        double[] sum = new double[g.width];
        long[] count = new long[g.width];
        // bit 1: the cell has +inf, bit 2: -inf; a cell of infinities alone shows that end of the scale
        byte[] inf = new byte[g.width];
        for (int cr = 0; cr < g.height; cr++) {
            java.util.Arrays.fill(sum, 0);
            java.util.Arrays.fill(count, 0);
            java.util.Arrays.fill(inf, (byte) 0);
            long r1 = Math.min(g.rows, (cr + 1) * g.rowBlock);
            for (long r = cr * g.rowBlock; r < r1; r++) {
                Drawable row = strip ? a : a.select(0, r);
                for (long c0 = 0; c0 < g.cols; c0 += CHUNK) {
                    long c1 = Math.min(g.cols, c0 + CHUNK);
                    double[] v = row.read(c0, c1);
                    for (int k = 0; k < v.length; k++) {
                        double x = v[k];
                        int cell = (int) ((c0 + k) / g.colBlock);
                        if (g.accept(x)) {
                            sum[cell] += x;
                            count[cell]++;
                        } else if (x == Double.POSITIVE_INFINITY) {
                            inf[cell] |= 1;
                        } else if (x == Double.NEGATIVE_INFINITY) {
                            inf[cell] |= 2;
                        }
                    }
                }
            }
            for (int cc = 0; cc < g.width; cc++) {
                g.cells[cr * g.width + cc] = count[cc] > 0 ? sum[cc] / count[cc]
                        : inf[cc] == 1 ? Double.POSITIVE_INFINITY : inf[cc] == 2 ? Double.NEGATIVE_INFINITY : Double.NaN;
            }
        }
        g.scaleMin = g.min;
        g.scaleMax = g.max;
        if (g.downsampled()) {
            g.scaleMin = Double.NaN;
            g.scaleMax = Double.NaN;
            for (double x : g.cells) {
                if (Double.isFinite(x)) {
                    g.scaleMin = Double.isNaN(g.scaleMin) ? x : Math.min(g.scaleMin, x);
                    g.scaleMax = Double.isNaN(g.scaleMax) ? x : Math.max(g.scaleMax, x);
                }
            }
        }
        return g;
    }

    /** Counts {@code x} into the range; true if it is finite (it then goes into its cell's mean). */
    boolean accept(double x) {
        if (Double.isNaN(x)) {
            nanCount++;
            return false;
        }
        if (Double.isInfinite(x)) {
            if (x > 0) {
                posInfCount++;
            } else {
                negInfCount++;
            }
            return false;
        }
        if (!(x >= min)) {
            min = x;
        }
        if (!(x <= max)) {
            max = x;
        }
        return true;
    }

    /** Where {@code x} lies on the scale from scaleMin to scaleMax: 0.5 for a constant array, NaN for NaN. */
    double position(double x) {
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? 1.0 : 0.0;
        }
        if (Double.isNaN(scaleMin) || scaleMax == scaleMin) {
            return 0.5;
        }
        return Math.min(1.0, Math.max(0.0, (x - scaleMin) / (scaleMax - scaleMin)));
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
