package dev.sharedarrays.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * SIMD loops (jdk.incubator.vector) for contiguous rows of F64, F32, I64/U64 and I32/U32. Loaded
 * only when the JVM runs with {@code --add-modules jdk.incubator.vector}; the tails and every
 * other case go to {@link ScalarKernels}.
 */
final class VectorKernels implements FastKernels {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    /** Ints with as many lanes as L, to widen into longs for sums. */
    private static final VectorSpecies<Integer> I_HALF =
            VectorSpecies.of(int.class, VectorShape.forBitSize(L.vectorBitSize() / 2));

    private static final int F64 = 1, F32 = 2, I64 = 3, I32 = 4, U64 = 7, U32 = 8;

    @Override
    public boolean handles(int code, int op) {
        return switch (op) {
            case Kernels.ADD, Kernels.SUB, Kernels.MUL -> code == F64 || code == F32 || code == I64 || code == I32 || code == U64 || code == U32;
            case Kernels.DIV -> code == F64 || code == F32;
            case Kernels.SUM, Kernels.MIN, Kernels.MAX -> code == F64 || code == F32 || code == I64 || code == I32;
            default -> false;
        };
    }

    @Override
    public void scalar(int code, int op, MemorySegment s, long off, long n, double dv, long lv) {
        long end = off + n * Kernels.itemSize(code);
        long o = off;
        switch (code) {
            case F64 -> {
                long step = D.vectorByteSize();
                for (; o + step <= end; o += step) {
                    DoubleVector x = DoubleVector.fromMemorySegment(D, s, o, LE);
                    x.lanewise(floatOp(op), dv).intoMemorySegment(s, o, LE);
                }
            }
            case F32 -> {
                long step = F.vectorByteSize();
                float v = (float) dv;
                for (; o + step <= end; o += step) {
                    FloatVector.fromMemorySegment(F, s, o, LE).lanewise(floatOp(op), v).intoMemorySegment(s, o, LE);
                }
            }
            case I64, U64 -> {
                long step = L.vectorByteSize();
                for (; o + step <= end; o += step) {
                    LongVector.fromMemorySegment(L, s, o, LE).lanewise(intOp(op), lv).intoMemorySegment(s, o, LE);
                }
            }
            default -> { // I32, U32
                long step = I.vectorByteSize();
                int v = (int) lv;
                for (; o + step <= end; o += step) {
                    IntVector.fromMemorySegment(I, s, o, LE).lanewise(intOp(op), v).intoMemorySegment(s, o, LE);
                }
            }
        }
        long done = (o - off) / Kernels.itemSize(code);
        if (done < n) {
            ScalarKernels.scalar(code, op, s, o, Kernels.itemSize(code), n - done, dv, lv);
        }
    }

    @Override
    public void binary(int code, int op, MemorySegment a, long ao, MemorySegment b, long bo, long n) {
        int size = Kernels.itemSize(code);
        long end = ao + n * size;
        long x = ao;
        long y = bo;
        switch (code) {
            case F64 -> {
                long step = D.vectorByteSize();
                for (; x + step <= end; x += step, y += step) {
                    DoubleVector.fromMemorySegment(D, a, x, LE).lanewise(floatOp(op), DoubleVector.fromMemorySegment(D, b, y, LE))
                            .intoMemorySegment(a, x, LE);
                }
            }
            case F32 -> {
                long step = F.vectorByteSize();
                for (; x + step <= end; x += step, y += step) {
                    FloatVector.fromMemorySegment(F, a, x, LE).lanewise(floatOp(op), FloatVector.fromMemorySegment(F, b, y, LE))
                            .intoMemorySegment(a, x, LE);
                }
            }
            case I64, U64 -> {
                long step = L.vectorByteSize();
                for (; x + step <= end; x += step, y += step) {
                    LongVector.fromMemorySegment(L, a, x, LE).lanewise(intOp(op), LongVector.fromMemorySegment(L, b, y, LE))
                            .intoMemorySegment(a, x, LE);
                }
            }
            default -> {
                long step = I.vectorByteSize();
                for (; x + step <= end; x += step, y += step) {
                    IntVector.fromMemorySegment(I, a, x, LE).lanewise(intOp(op), IntVector.fromMemorySegment(I, b, y, LE))
                            .intoMemorySegment(a, x, LE);
                }
            }
        }
        long done = (x - ao) / size;
        if (done < n) {
            ScalarKernels.binary(code, op, a, x, size, b, y, size, n - done);
        }
    }

    private static VectorOperators.Binary floatOp(int op) {
        return switch (op) {
            case Kernels.ADD -> VectorOperators.ADD;
            case Kernels.SUB -> VectorOperators.SUB;
            case Kernels.MUL -> VectorOperators.MUL;
            default -> VectorOperators.DIV;
        };
    }

    private static VectorOperators.Binary intOp(int op) {
        return switch (op) {
            case Kernels.ADD -> VectorOperators.ADD;
            case Kernels.SUB -> VectorOperators.SUB;
            default -> VectorOperators.MUL;
        };
    }

    @Override
    public double reduceFloat(int code, int op, MemorySegment s, long off, long n) {
        return code == F64 ? reduceF64(op, s, off, n) : reduceF32(op, s, off, n);
    }

    private static double reduceF64(int op, MemorySegment s, long off, long n) {
        long step = D.vectorByteSize();
        int lanes = D.length();
        if (op == Kernels.SUM) {
            // blocks of vector partial sums, added across blocks with compensation
            double total = 0;
            double comp = 0;
            long i = 0;
            while (i < n) {
                long m = Math.min(4096, n - i);
                long o = off + i * 8;
                long end = o + (m / (2L * lanes)) * 2 * step;
                DoubleVector s0 = DoubleVector.zero(D);
                DoubleVector s1 = DoubleVector.zero(D);
                for (; o < end; o += 2 * step) {
                    s0 = s0.add(DoubleVector.fromMemorySegment(D, s, o, LE));
                    s1 = s1.add(DoubleVector.fromMemorySegment(D, s, o + step, LE));
                }
                double block = s0.add(s1).reduceLanes(VectorOperators.ADD);
                long done = (o - (off + i * 8)) / 8;
                if (done < m) {
                    block += ScalarKernels.sumFloat(F64, s, o, 8, m - done);
                }
                double t = total + block;
                comp += Math.abs(total) >= Math.abs(block) ? (total - t) + block : (block - t) + total;
                total = t;
                i += m;
            }
            return total + comp;
        }
        boolean min = op == Kernels.MIN;
        long end = off + (n / (4L * lanes)) * 4 * step;
        long o = off;
        DoubleVector m0 = DoubleVector.broadcast(D, min ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
        DoubleVector m1 = m0;
        DoubleVector m2 = m0;
        DoubleVector m3 = m0;
        VectorOperators.Binary f = min ? VectorOperators.MIN : VectorOperators.MAX;
        for (; o < end; o += 4 * step) {
            m0 = m0.lanewise(f, DoubleVector.fromMemorySegment(D, s, o, LE));
            m1 = m1.lanewise(f, DoubleVector.fromMemorySegment(D, s, o + step, LE));
            m2 = m2.lanewise(f, DoubleVector.fromMemorySegment(D, s, o + 2 * step, LE));
            m3 = m3.lanewise(f, DoubleVector.fromMemorySegment(D, s, o + 3 * step, LE));
        }
        double r = m0.lanewise(f, m1).lanewise(f, m2.lanewise(f, m3)).reduceLanes(min ? VectorOperators.MIN : VectorOperators.MAX);
        long done = (o - off) / 8;
        if (done < n) {
            double t = min ? ScalarKernels.minFloat(F64, s, o, 8, n - done) : ScalarKernels.maxFloat(F64, s, o, 8, n - done);
            r = min ? Math.min(r, t) : Math.max(r, t);
        }
        return r;
    }

    private static double reduceF32(int op, MemorySegment s, long off, long n) {
        long step = F.vectorByteSize();
        int lanes = F.length();
        long end = off + (n / lanes) * step;
        long o = off;
        double r;
        if (op == Kernels.SUM) {
            // float lanes widened into two double accumulators (F has twice D's lanes)
            DoubleVector a0 = DoubleVector.zero(D);
            DoubleVector a1 = DoubleVector.zero(D);
            for (; o < end; o += step) {
                FloatVector v = FloatVector.fromMemorySegment(F, s, o, LE);
                a0 = a0.add((DoubleVector) v.convertShape(VectorOperators.F2D, D, 0));
                a1 = a1.add((DoubleVector) v.convertShape(VectorOperators.F2D, D, 1));
            }
            r = a0.add(a1).reduceLanes(VectorOperators.ADD);
            long done = (o - off) / 4;
            return done < n ? r + ScalarKernels.sumFloat(F32, s, o, 4, n - done) : r;
        }
        boolean min = op == Kernels.MIN;
        VectorOperators.Binary f = min ? VectorOperators.MIN : VectorOperators.MAX;
        FloatVector m = FloatVector.broadcast(F, min ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY);
        for (; o < end; o += step) {
            m = m.lanewise(f, FloatVector.fromMemorySegment(F, s, o, LE));
        }
        r = m.reduceLanes(min ? VectorOperators.MIN : VectorOperators.MAX);
        long done = (o - off) / 4;
        if (done < n) {
            double t = min ? ScalarKernels.minFloat(F32, s, o, 4, n - done) : ScalarKernels.maxFloat(F32, s, o, 4, n - done);
            r = min ? Math.min(r, t) : Math.max(r, t);
        }
        return r;
    }

    @Override
    public long reduceInt(int code, int op, MemorySegment s, long off, long n) {
        int size = Kernels.itemSize(code);
        long o = off;
        long r;
        if (code == I64) {
            long step = L.vectorByteSize();
            long end = off + (n / L.length()) * step;
            LongVector acc = op == Kernels.SUM ? LongVector.zero(L)
                    : LongVector.broadcast(L, op == Kernels.MIN ? Long.MAX_VALUE : Long.MIN_VALUE);
            VectorOperators.Binary f = op == Kernels.SUM ? VectorOperators.ADD : op == Kernels.MIN ? VectorOperators.MIN : VectorOperators.MAX;
            for (; o < end; o += step) {
                acc = acc.lanewise(f, LongVector.fromMemorySegment(L, s, o, LE));
            }
            r = acc.reduceLanes(op == Kernels.SUM ? VectorOperators.ADD : op == Kernels.MIN ? VectorOperators.MIN : VectorOperators.MAX);
        } else if (op == Kernels.SUM) {
            long step = I_HALF.vectorByteSize();
            long end = off + (n / I_HALF.length()) * step;
            LongVector acc = LongVector.zero(L);
            for (; o < end; o += step) {
                acc = acc.add((LongVector) IntVector.fromMemorySegment(I_HALF, s, o, LE).convertShape(VectorOperators.I2L, L, 0));
            }
            r = acc.reduceLanes(VectorOperators.ADD);
        } else {
            long step = I.vectorByteSize();
            long end = off + (n / I.length()) * step;
            boolean min = op == Kernels.MIN;
            IntVector acc = IntVector.broadcast(I, min ? Integer.MAX_VALUE : Integer.MIN_VALUE);
            VectorOperators.Binary f = min ? VectorOperators.MIN : VectorOperators.MAX;
            for (; o < end; o += step) {
                acc = acc.lanewise(f, IntVector.fromMemorySegment(I, s, o, LE));
            }
            r = acc.reduceLanes(min ? VectorOperators.MIN : VectorOperators.MAX);
        }
        long done = (o - off) / size;
        if (done < n) {
            long t = switch (op) {
                case Kernels.SUM -> ScalarKernels.sumInt(code, s, o, size, n - done);
                case Kernels.MIN -> ScalarKernels.minInt(code, s, o, size, n - done);
                default -> ScalarKernels.maxInt(code, s, o, size, n - done);
            };
            r = switch (op) {
                case Kernels.SUM -> r + t;
                case Kernels.MIN -> Math.min(r, t);
                default -> Math.max(r, t);
            };
        }
        return r;
    }
}
