package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;

/**
 * numpy's cumsum: running sums in row-major order (flat) or along one axis, accumulated in the
 * result type: float results add in double and F32 rounds after every add (numpy adds in float32,
 * and rounding a double sum of two floats gives the float sum); integer results add in 64 bits
 * and wrap to their width. Each element's sum is the same sequence of adds as numpy's, so results
 * are bit-identical to numpy's.
 */
public final class CumulativeSum {
    private CumulativeSum() {
    }

    /** numpy's result type: F64 and F32 keep theirs, signed integers give I64, unsigned U64. */
    public static ElementType defaultType(ElementType t) {
        if (t.isFloatingPoint()) {
            return t;
        }
        return t.isUnsigned() ? ElementType.U64 : ElementType.I64;
    }

    /** Running sums of {@code in}'s elements in row-major order into the contiguous 1-d {@code out} of type r. */
    public static void flat(ElementType t, MemorySegment in, StridedLayout l, ElementType r, MemorySegment out) {
        Carry c = new Carry(t, r, 1);
        long[] pos = {0};
        Loops.rows(l, 1, (off, stride, n) -> {
            c.lane(in, off, stride, n, out, pos[0], 1);
            pos[0] += n;
        });
    }

    /** Running sums along {@code axis} (checked) into the contiguous {@code out} of type r and {@code in}'s shape. */
    public static void axis(ElementType t, MemorySegment in, StridedLayout l, int axis, ElementType r, MemorySegment out) {
        int a = Lanes.axis(axis, l.ndim());
        Lanes lanes = Lanes.of(l, a);
        Lanes outLanes = Lanes.of(StridedLayout.contiguous(l.shape()), a);
        long len = lanes.length();
        long ls = lanes.stride();
        long os = outLanes.stride();
        if (lanes.alongEachLane()) {
            Carry c = new Carry(t, r, 1);
            lanes.rows(outLanes.rest(), (io, is, oo, oss, n) -> {
                for (long j = 0; j < n; j++) {
                    c.restart();
                    c.lane(in, io + j * is, ls, len, out, oo + j * oss, os);
                }
            });
            return;
        }
        Carry c = new Carry(t, r, Blocks.SIZE);
        lanes.rows(outLanes.rest(), (io, is, oo, oss, n) -> {
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                c.across(in, io + b * is, is, ls, len, m, out, oo + b * oss, oss, os);
            }
        });
    }

    /** The running state of one or a block of sums, in double (float results) or long (integer results). */
    private static final class Carry {
        private final ElementType t;
        private final ElementType r;
        private final boolean floating;
        private final boolean f32;
        private final double[] dx = new double[Blocks.SIZE];
        private final long[] lx;
        private final double[] dacc;
        private final long[] lacc;
        /** The running sum of {@link #lane}, carried from one call to the next until {@link #restart}. */
        private double dsum;
        private long lsum;

        Carry(ElementType t, ElementType r, int width) {
            this.t = t;
            this.r = r;
            this.floating = r.isFloatingPoint();
            this.f32 = r == ElementType.F32;
            this.lx = floating ? null : new long[Blocks.SIZE];
            this.dacc = floating ? new double[width] : null;
            this.lacc = floating ? null : new long[width];
        }

        void restart() {
            dsum = 0;
            lsum = 0;
        }

        /** n elements (in at off/stride) of a lane, continuing its running sum, into out at oOff/oStride. */
        void lane(MemorySegment in, long off, long stride, long n, MemorySegment out, long oOff, long oStride) {
            double ds = dsum;
            long ls = lsum;
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                if (floating) {
                    Blocks.load(t, in, off + b * stride, stride, m, dx);
                    for (int k = 0; k < m; k++) {
                        ds += dx[k];
                        ds = f32 ? (float) ds : ds;
                        dx[k] = ds;
                    }
                    Blocks.store(r, out, oOff + b * oStride, oStride, m, dx);
                } else {
                    Blocks.load(t, in, off + b * stride, stride, m, lx);
                    for (int k = 0; k < m; k++) {
                        ls += lx[k];
                        lx[k] = ls;
                    }
                    Blocks.store(r, out, oOff + b * oStride, oStride, m, lx);
                }
            }
            dsum = ds;
            lsum = ls;
        }

        /**
         * m lanes side by side (first elements at off, is apart; lanes of len elements ls apart) into
         * out (first elements at oOff, oss apart; lanes os apart), one position of the axis at a time.
         */
        void across(MemorySegment in, long off, long is, long ls, long len, int m, MemorySegment out, long oOff, long oss,
                    long os) {
            if (floating) {
                java.util.Arrays.fill(dacc, 0, m, 0);
            } else {
                java.util.Arrays.fill(lacc, 0, m, 0);
            }
            for (long i = 0; i < len; i++) {
                if (floating) {
                    Blocks.load(t, in, off + i * ls, is, m, dx);
                    for (int j = 0; j < m; j++) {
                        double v = dacc[j] + dx[j];
                        dacc[j] = f32 ? (float) v : v;
                    }
                    Blocks.store(r, out, oOff + i * os, oss, m, dacc);
                } else {
                    Blocks.load(t, in, off + i * ls, is, m, lx);
                    for (int j = 0; j < m; j++) {
                        lacc[j] += lx[j];
                    }
                    Blocks.store(r, out, oOff + i * os, oss, m, lacc);
                }
            }
        }
    }
}
