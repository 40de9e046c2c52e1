package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.LT;

/**
 * SIMD loops (jdk.incubator.vector) of the element-wise math functions for contiguous F64 and
 * F32 rows, of the F64/F32 casts, and of the F64 per-axis sums, minima and maxima across rows. Loaded only when the JVM runs with {@code --add-modules jdk.incubator.vector}. On
 * x86-64 the JDK compiles the transcendental operators and POW to Intel SVML routines (within
 * 1 ulp); the others are exact. The Vector API has no floor, ceil or rint: they round by adding
 * and subtracting 2^52 (2^23 for F32). Every loop names its operator as a constant: C2 compiles
 * the Vector API to SIMD instructions only then, so the switch picks a loop once per row.
 */
final class VectorMath implements SimdMath {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    /** As many floats as D has doubles: the other side of a conversion (none below 64 bits: then no SIMD conversion). */
    private static final VectorSpecies<Float> F_HALF = D.vectorBitSize() >= 128
            ? VectorSpecies.of(float.class, VectorShape.forBitSize(D.vectorBitSize() / 2)) : null;
    /** From this magnitude on every double is a whole number; below it x + 2^52 - 2^52 rounds x to even. */
    private static final double WHOLE_D = 0x1p52;
    private static final float WHOLE_F = 0x1p23f;

    @Override
    public boolean handles(ElementType t, MathOp op) {
        return t == ElementType.F64 || t == ElementType.F32;
    }

    @Override
    public int combineRowsF64(int op, double[] acc, MemorySegment s, long first, long rowBytes, long rows, int n) {
        int bound = n - n % D.length();
        switch (op) {
            case 1 -> minRows(acc, bound, s, first, rowBytes, rows);
            case 2 -> maxRows(acc, bound, s, first, rowBytes, rows);
            default -> sumRows(acc, bound, s, first, rowBytes, rows);
        }
        return bound;
    }

    // row by row (four at a time), each across the block: acc stays in L1 and every row streams
    private static void sumRows(double[] acc, int bound, MemorySegment s, long first, long rb, long rows) {
        FaultMark.touch();
        long i = 1;
        for (; i + 4 <= rows; i += 4) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector v01 = DoubleVector.fromMemorySegment(D, s, o, LE).add(DoubleVector.fromMemorySegment(D, s, o + rb, LE));
                DoubleVector v23 = DoubleVector.fromMemorySegment(D, s, o + 2 * rb, LE)
                        .add(DoubleVector.fromMemorySegment(D, s, o + 3 * rb, LE));
                DoubleVector.fromArray(D, acc, j).add(v01.add(v23)).intoArray(acc, j);
            }
        }
        for (; i < rows; i++) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector.fromArray(D, acc, j).add(DoubleVector.fromMemorySegment(D, s, o, LE)).intoArray(acc, j);
            }
        }
    }

    private static void minRows(double[] acc, int bound, MemorySegment s, long first, long rb, long rows) {
        FaultMark.touch();
        long i = 1;
        for (; i + 4 <= rows; i += 4) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector v01 = DoubleVector.fromMemorySegment(D, s, o, LE).min(DoubleVector.fromMemorySegment(D, s, o + rb, LE));
                DoubleVector v23 = DoubleVector.fromMemorySegment(D, s, o + 2 * rb, LE)
                        .min(DoubleVector.fromMemorySegment(D, s, o + 3 * rb, LE));
                DoubleVector.fromArray(D, acc, j).min(v01.min(v23)).intoArray(acc, j);
            }
        }
        for (; i < rows; i++) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector.fromArray(D, acc, j).min(DoubleVector.fromMemorySegment(D, s, o, LE)).intoArray(acc, j);
            }
        }
    }

    private static void maxRows(double[] acc, int bound, MemorySegment s, long first, long rb, long rows) {
        FaultMark.touch();
        long i = 1;
        for (; i + 4 <= rows; i += 4) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector v01 = DoubleVector.fromMemorySegment(D, s, o, LE).max(DoubleVector.fromMemorySegment(D, s, o + rb, LE));
                DoubleVector v23 = DoubleVector.fromMemorySegment(D, s, o + 2 * rb, LE)
                        .max(DoubleVector.fromMemorySegment(D, s, o + 3 * rb, LE));
                DoubleVector.fromArray(D, acc, j).max(v01.max(v23)).intoArray(acc, j);
            }
        }
        for (; i < rows; i++) {
            long o = first + i * rb;
            for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                DoubleVector.fromArray(D, acc, j).max(DoubleVector.fromMemorySegment(D, s, o, LE)).intoArray(acc, j);
            }
        }
    }

    @Override
    public long convert(ElementType from, ElementType to, MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long bound = n - n % D.length();
        if (F_HALF == null) {
            return 0;
        }
        if (from == ElementType.F64 && to == ElementType.F32) {
            for (long i = 0; i < bound; i += D.length()) {
                DoubleVector v = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
                v.convertShape(VectorOperators.D2F, F_HALF, 0).intoMemorySegment(d, dOff + i * 4, LE);
            }
            return bound;
        }
        if (from == ElementType.F32 && to == ElementType.F64) {
            for (long i = 0; i < bound; i += D.length()) {
                FloatVector v = FloatVector.fromMemorySegment(F_HALF, s, so + i * 4, LE);
                v.convertShape(VectorOperators.F2D, D, 0).intoMemorySegment(d, dOff + i * 8, LE);
            }
            return bound;
        }
        return 0;
    }

    @Override
    public long pow(ElementType t, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        return t == ElementType.F64 ? powD(a, ao, b, bo, d, dOff, n) : powF(a, ao, b, bo, d, dOff, n);
    }

    @Override
    public long unary(ElementType t, MathOp op, MemorySegment s, long so, MemorySegment d, long dOff, long n, double p, double q) {
        if (t == ElementType.F64) {
            return switch (op) {
                case SQRT -> sqrtD(s, so, d, dOff, n);
                case EXP -> expD(s, so, d, dOff, n);
                case LOG -> logD(s, so, d, dOff, n);
                case LOG1P -> log1pD(s, so, d, dOff, n);
                case EXPM1 -> expm1D(s, so, d, dOff, n);
                case SIN -> sinD(s, so, d, dOff, n);
                case COS -> cosD(s, so, d, dOff, n);
                case TAN -> tanD(s, so, d, dOff, n);
                case TANH -> tanhD(s, so, d, dOff, n);
                case ABS -> absD(s, so, d, dOff, n);
                case SIGN -> signD(s, so, d, dOff, n);
                case FLOOR -> floorD(s, so, d, dOff, n);
                case CEIL -> ceilD(s, so, d, dOff, n);
                case RINT -> rintD(s, so, d, dOff, n);
                case POW -> powD(s, so, d, dOff, n, p);
                case CLIP -> Double.isNaN(p) || Double.isNaN(q) ? 0 : clipD(s, so, d, dOff, n, p, q);
            };
        }
        float pf = (float) p;
        return switch (op) {
            case SQRT -> sqrtF(s, so, d, dOff, n);
            case EXP -> expF(s, so, d, dOff, n);
            case LOG -> logF(s, so, d, dOff, n);
            case LOG1P -> log1pF(s, so, d, dOff, n);
            case EXPM1 -> expm1F(s, so, d, dOff, n);
            case SIN -> sinF(s, so, d, dOff, n);
            case COS -> cosF(s, so, d, dOff, n);
            case TAN -> tanF(s, so, d, dOff, n);
            case TANH -> tanhF(s, so, d, dOff, n);
            case ABS -> absF(s, so, d, dOff, n);
            case SIGN -> signF(s, so, d, dOff, n);
            case FLOOR -> floorF(s, so, d, dOff, n);
            case CEIL -> ceilF(s, so, d, dOff, n);
            case RINT -> rintF(s, so, d, dOff, n);
            case POW -> powF(s, so, d, dOff, n, pf);
            case CLIP -> Double.isNaN(p) || Double.isNaN(q) ? 0 : clipF(s, so, d, dOff, n, pf, (float) q);
        };
    }

    private static long sqrtD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.SQRT).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long sqrtF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.SQRT).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long expD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.EXP).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long expF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.EXP).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long logD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.LOG).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long logF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.LOG).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long log1pD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.LOG1P).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long log1pF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.LOG1P).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long expm1D(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.EXPM1).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long expm1F(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.EXPM1).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long sinD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.SIN).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long sinF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.SIN).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long cosD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.COS).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long cosF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.COS).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long tanD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.TAN).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long tanF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.TAN).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long tanhD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.TANH).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long tanhF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.TANH).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long absD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).lanewise(VectorOperators.ABS).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long absF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector.fromMemorySegment(F, s, so + i * 4, LE).lanewise(VectorOperators.ABS).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long signD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            // NaN stays NaN; both zeros give +0.0, as numpy's sign does
            x.blend(1.0, x.compare(GT, 0.0)).blend(-1.0, x.compare(LT, 0.0)).blend(0.0, x.compare(EQ, 0.0))
                    .intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    /** x rounded to a whole number, ties to even, with x's sign (rint(-0.4) is -0.0). */
    private static DoubleVector rint(DoubleVector x) {
        DoubleVector a = x.abs();
        return withSignOf(a.add(WHOLE_D).sub(WHOLE_D).blend(a, a.compare(GE, WHOLE_D)), x);
    }

    private static DoubleVector withSignOf(DoubleVector r, DoubleVector x) {
        return r.reinterpretAsLongs().or(x.reinterpretAsLongs().and(Long.MIN_VALUE)).reinterpretAsDoubles();
    }

    private static long rintD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            rint(DoubleVector.fromMemorySegment(D, s, so + i * 8, LE)).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long floorD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            DoubleVector r = rint(x);
            r.sub(1.0, r.compare(GT, x)).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long ceilD(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            DoubleVector r = rint(x);
            // ceil(-0.5) is -0.0: the sign of x again after -1 + 1
            withSignOf(r.add(1.0, r.compare(LT, x)), x).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long clipD(MemorySegment s, long so, MemorySegment d, long dOff, long n, double lo, double hi) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            DoubleVector r = x.blend(lo, x.compare(LT, lo));
            r.blend(hi, r.compare(GT, hi)).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long powD(MemorySegment s, long so, MemorySegment d, long dOff, long n, double y) {
        FaultMark.touch();
        if (y == 0.5) {
            return sqrtD(s, so, d, dOff, n);
        }
        long step = D.length();
        long i = 0;
        if (y == 2.0) {
            for (; i <= n - step; i += step) {
                DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
                x.mul(x).intoMemorySegment(d, dOff + i * 8, LE);
            }
            return i;
        }
        if (y == 1.0) {
            for (; i <= n - step; i += step) {
                DoubleVector.fromMemorySegment(D, s, so + i * 8, LE).intoMemorySegment(d, dOff + i * 8, LE);
            }
            return i;
        }
        boolean inf = Double.isInfinite(y);
        boolean zero = y == 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            VectorMask<Double> one = x.compare(EQ, 1.0).or(x.compare(EQ, inf ? -1.0 : 1.0));
            x.lanewise(VectorOperators.POW, y).blend(1.0, zero ? D.maskAll(true) : one).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long powD(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = D.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            DoubleVector x = DoubleVector.fromMemorySegment(D, a, ao + i * 8, LE);
            DoubleVector y = DoubleVector.fromMemorySegment(D, b, bo + i * 8, LE);
            // C's pow (numpy's): 1 ** y, (-1) ** ±inf and x ** 0 are 1
            VectorMask<Double> one = x.compare(EQ, 1.0).or(y.compare(EQ, 0.0))
                    .or(x.compare(EQ, -1.0).and(y.abs().compare(EQ, Double.POSITIVE_INFINITY)));
            x.lanewise(VectorOperators.POW, y).blend(1.0, one).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return i;
    }

    private static long signF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
            x.blend(1.0f, x.compare(GT, 0.0f)).blend(-1.0f, x.compare(LT, 0.0f)).blend(0.0f, x.compare(EQ, 0.0f))
                    .intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static FloatVector rint(FloatVector x) {
        FloatVector a = x.abs();
        return withSignOf(a.add(WHOLE_F).sub(WHOLE_F).blend(a, a.compare(GE, WHOLE_F)), x);
    }

    private static FloatVector withSignOf(FloatVector r, FloatVector x) {
        return r.reinterpretAsInts().or(x.reinterpretAsInts().and(Integer.MIN_VALUE)).reinterpretAsFloats();
    }

    private static long rintF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            rint(FloatVector.fromMemorySegment(F, s, so + i * 4, LE)).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long floorF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
            FloatVector r = rint(x);
            r.sub(1.0f, r.compare(GT, x)).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long ceilF(MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
            FloatVector r = rint(x);
            withSignOf(r.add(1.0f, r.compare(LT, x)), x).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long clipF(MemorySegment s, long so, MemorySegment d, long dOff, long n, float lo, float hi) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
            FloatVector r = x.blend(lo, x.compare(LT, lo));
            r.blend(hi, r.compare(GT, hi)).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long powF(MemorySegment s, long so, MemorySegment d, long dOff, long n, float y) {
        FaultMark.touch();
        if (y == 0.5f) {
            return sqrtF(s, so, d, dOff, n);
        }
        long step = F.length();
        long i = 0;
        if (y == 2.0f) {
            for (; i <= n - step; i += step) {
                FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
                x.mul(x).intoMemorySegment(d, dOff + i * 4, LE);
            }
            return i;
        }
        if (y == 1.0f) {
            for (; i <= n - step; i += step) {
                FloatVector.fromMemorySegment(F, s, so + i * 4, LE).intoMemorySegment(d, dOff + i * 4, LE);
            }
            return i;
        }
        boolean inf = Float.isInfinite(y);
        boolean zero = y == 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, s, so + i * 4, LE);
            VectorMask<Float> one = x.compare(EQ, 1.0f).or(x.compare(EQ, inf ? -1.0f : 1.0f));
            x.lanewise(VectorOperators.POW, y).blend(1.0f, zero ? F.maskAll(true) : one).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }

    private static long powF(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
        FaultMark.touch();
        long step = F.length();
        long i = 0;
        for (; i <= n - step; i += step) {
            FloatVector x = FloatVector.fromMemorySegment(F, a, ao + i * 4, LE);
            FloatVector y = FloatVector.fromMemorySegment(F, b, bo + i * 4, LE);
            VectorMask<Float> one = x.compare(EQ, 1.0f).or(y.compare(EQ, 0.0f))
                    .or(x.compare(EQ, -1.0f).and(y.abs().compare(EQ, Float.POSITIVE_INFINITY)));
            x.lanewise(VectorOperators.POW, y).blend(1.0f, one).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return i;
    }
}
