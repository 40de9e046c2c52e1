package dev.sharedarrays.internal.array;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Kernels;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;

/**
 * Reduces an array along one axis into a contiguous result of the other axes' shape. Two walks,
 * chosen by {@link Lanes#alongEachLane()}: lane by lane when the axis is innermost in memory (each
 * output element is one row kernel call, SIMD for contiguous rows), else across the lanes: a block
 * of output elements at a time, adding (or multiplying, comparing) the block of input elements at
 * each position of the axis, so memory is read row by row as it lies (numpy's order for sums).
 */
public final class AxisReduction {
    private AxisReduction() {
    }

    /**
     * Tests force one walk (true: lane by lane, false: across the lanes; null: choose) for per-axis
     * reductions and cumulative sums, to check both on any shape; returns the previous setting.
     */
    public static Boolean forceLaneWalk(Boolean alongEachLane) {
        return Lanes.force(alongEachLane);
    }

    /**
     * The shape of the result: the input shape without {@code axis} ([1] for a 1-d input);
     * a negative axis counts from the end.
     *
     * @throws IndexOutOfBoundsException if {@code axis < -shape.length || axis >= shape.length}
     */
    public static long[] outShape(long[] shape, int axis) {
        int a = Lanes.axis(axis, shape.length);
        return shape.length == 1 ? new long[] {1} : Shapes.removeAxis(shape, a);
    }

    /**
     * Reduces {@code in} (type t, layout l) along {@code axis} (already checked, may be negative)
     * into the contiguous {@code out} of {@link Reduction#resultType} and {@link #outShape}.
     */
    public static void reduce(ElementType t, Reduction r, MemorySegment in, StridedLayout l, int axis, MemorySegment out) {
        Lanes lanes = Lanes.of(l, Lanes.axis(axis, l.ndim()));
        StridedLayout outLayout = StridedLayout.contiguous(lanes.rest().shape());
        if (lanes.alongEachLane()) {
            along(t, r, in, lanes, out, outLayout);
        } else if (r.isArg()) {
            acrossArg(t, r == Reduction.ARGMAX, in, lanes, out, outLayout);
        } else if (r.isSpread()) {
            acrossSpread(t, r, in, lanes, out, outLayout);
        } else if (r.integerDomain(t)) {
            acrossLong(t, r, in, lanes, out, outLayout);
        } else {
            acrossDouble(t, r, in, lanes, out, outLayout);
        }
    }

    private static void along(ElementType t, Reduction r, MemorySegment in, Lanes lanes, MemorySegment out, StridedLayout ol) {
        int size = t.itemSize();
        long len = lanes.length();
        long ls = lanes.stride();
        double[] dbuf = new double[(int) Math.min(Blocks.SIZE, len)];
        long[] lbuf = t.isFloatingPoint() ? null : new long[dbuf.length];
        boolean floating = t.isFloatingPoint();
        lanes.rows(ol, (io, is, oo, os, n) -> {
            for (long j = 0; j < n; j++) {
                long lane = io + j * is;
                long o = oo + j * os;
                switch (r) {
                    case SUM, MEAN -> {
                        double v = floating ? Kernels.reduceFloat(t, Op.SUM, in, lane * size, ls * size, len)
                                : ElementCodec.longToDouble(t, Kernels.reduceInt(t, Op.SUM, in, lane * size, ls * size, len));
                        out.setAtIndex(JAVA_DOUBLE, o, r == Reduction.MEAN ? v / len : v);
                    }
                    case MIN, MAX -> {
                        Op op = r == Reduction.MIN ? Op.MIN : Op.MAX;
                        if (floating) {
                            ElementCodec.setDouble(t, out, o, Kernels.reduceFloat(t, op, in, lane * size, ls * size, len));
                        } else {
                            ElementCodec.setLong(t, out, o, Kernels.reduceInt(t, op, in, lane * size, ls * size, len));
                        }
                    }
                    case PROD -> out.setAtIndex(JAVA_DOUBLE, o, floating ? RowReduction.productAsDouble(t, in, lane, ls, len, dbuf)
                            : RowReduction.unsignedAware(t, RowReduction.productAsLong(t, in, lane, ls, len, lbuf)));
                    case VAR, STD -> {
                        double v = RowReduction.variance(t, in, lane, ls, len, dbuf);
                        out.setAtIndex(JAVA_DOUBLE, o, r == Reduction.STD ? Math.sqrt(v) : v);
                    }
                    case ARGMIN, ARGMAX -> out.setAtIndex(JAVA_LONG, o, RowReduction.arg(t, r == Reduction.ARGMAX, in, lane, ls, len));
                }
            }
        });
    }

    /** Elements per block across the lanes: no more than there are lanes. */
    private static int blockWidth(Lanes lanes) {
        return (int) Math.min(Blocks.SIZE, lanes.rest().size());
    }

    private static void acrossDouble(ElementType t, Reduction r, MemorySegment in, Lanes lanes, MemorySegment out, StridedLayout ol) {
        int width = blockWidth(lanes);
        long len = lanes.length();
        long ls = lanes.stride();
        double[] acc = new double[width];
        double[] x = new double[width];
        ElementType ot = r.resultType(t);
        lanes.rows(ol, (io, is, oo, os, n) -> {
            boolean fastF64 = t == ElementType.F64 && is == 1 && r != Reduction.PROD;
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                long first = io + b * is;
                Blocks.load(t, in, first, is, m, acc);
                if (fastF64) {
                    BlockMath.combineF64Rows(r, acc, in, first, ls, len, m);
                } else {
                    for (long i = 1; i < len; i++) {
                        Blocks.load(t, in, first + i * ls, is, m, x);
                        BlockMath.combine(r, acc, x, m);
                    }
                }
                if (r == Reduction.MEAN) {
                    for (int j = 0; j < m; j++) {
                        acc[j] /= len;
                    }
                }
                Blocks.store(ot, out, oo + b * os, os, m, acc);
            }
        });
    }

    private static void acrossLong(ElementType t, Reduction r, MemorySegment in, Lanes lanes, MemorySegment out, StridedLayout ol) {
        int width = blockWidth(lanes);
        long len = lanes.length();
        long ls = lanes.stride();
        long[] acc = new long[width];
        long[] x = new long[width];
        double[] d = new double[width];
        boolean u64 = t.isUnsigned64();
        lanes.rows(ol, (io, is, oo, os, n) -> {
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                long first = io + b * is;
                Blocks.load(t, in, first, is, m, acc);
                for (long i = 1; i < len; i++) {
                    Blocks.load(t, in, first + i * ls, is, m, x);
                    BlockMath.combine(r, u64, acc, x, m);
                }
                if (r == Reduction.MIN || r == Reduction.MAX) {
                    Blocks.store(t, out, oo + b * os, os, m, acc);
                    continue;
                }
                for (int j = 0; j < m; j++) {
                    d[j] = r == Reduction.PROD ? RowReduction.unsignedAware(t, acc[j]) : ElementCodec.longToDouble(t, acc[j]);
                    d[j] = r == Reduction.MEAN ? d[j] / len : d[j];
                }
                Blocks.store(ElementType.F64, out, oo + b * os, os, m, d);
            }
        });
    }

    private static void acrossSpread(ElementType t, Reduction r, MemorySegment in, Lanes lanes, MemorySegment out, StridedLayout ol) {
        int width = blockWidth(lanes);
        long len = lanes.length();
        long ls = lanes.stride();
        double[] mean = new double[width];
        double[] acc = new double[width];
        double[] x = new double[width];
        lanes.rows(ol, (io, is, oo, os, n) -> {
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                long first = io + b * is;
                Blocks.load(t, in, first, is, m, mean);
                for (long i = 1; i < len; i++) {
                    Blocks.load(t, in, first + i * ls, is, m, x);
                    BlockMath.combine(Reduction.SUM, mean, x, m);
                }
                for (int j = 0; j < m; j++) {
                    mean[j] /= len;
                    acc[j] = 0;
                }
                for (long i = 0; i < len; i++) {
                    Blocks.load(t, in, first + i * ls, is, m, x);
                    BlockMath.addSquaredDeviations(acc, x, mean, m);
                }
                for (int j = 0; j < m; j++) {
                    acc[j] = r == Reduction.STD ? Math.sqrt(acc[j] / len) : acc[j] / len;
                }
                Blocks.store(ElementType.F64, out, oo + b * os, os, m, acc);
            }
        });
    }

    private static void acrossArg(ElementType t, boolean max, MemorySegment in, Lanes lanes, MemorySegment out, StridedLayout ol) {
        int width = blockWidth(lanes);
        long len = lanes.length();
        long ls = lanes.stride();
        long[] index = new long[width];
        boolean floating = t.isFloatingPoint();
        double[] bestD = floating ? new double[width] : null;
        double[] xd = floating ? new double[width] : null;
        long[] bestL = floating ? null : new long[width];
        long[] xl = floating ? null : new long[width];
        lanes.rows(ol, (io, is, oo, os, n) -> {
            for (long b = 0; b < n; b += Blocks.SIZE) {
                int m = (int) Math.min(Blocks.SIZE, n - b);
                long first = io + b * is;
                java.util.Arrays.fill(index, 0, m, 0);
                if (floating) {
                    Blocks.load(t, in, first, is, m, bestD);
                } else {
                    Blocks.load(t, in, first, is, m, bestL);
                }
                for (long i = 1; i < len; i++) {
                    if (floating) {
                        Blocks.load(t, in, first + i * ls, is, m, xd);
                        BlockMath.arg(max, bestD, index, xd, i, m);
                    } else {
                        Blocks.load(t, in, first + i * ls, is, m, xl);
                        BlockMath.arg(max, t.isUnsigned64(), bestL, index, xl, i, m);
                    }
                }
                Blocks.store(ElementType.I64, out, oo + b * os, os, m, index);
            }
        });
    }
}
