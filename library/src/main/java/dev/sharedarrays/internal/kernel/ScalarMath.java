package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The element-wise math loops without SIMD, on any row: blocks of the row are copied into a
 * heap buffer, the function runs over the buffer with one loop per function (which C2 compiles
 * to SIMD where it can: sqrt, floor, abs), and the block is stored. F32 is computed in double
 * and rounded, so results are correctly rounded (sqrt, floor, ...) or within an ulp of it.
 * Semantics are numpy's (C's), where java.lang.Math differs: {@code sign(-0.0) == 0.0},
 * {@code pow(1, NaN) == 1}, {@code pow(-1, ±inf) == 1}.
 */
final class ScalarMath {
    /** Elements per block: the buffers stay in L1. */
    private static final int BLOCK = 512;

    private ScalarMath() {
    }

    /** d[i] = op(s[i]) for a float row; p is POW's exponent or CLIP's lower bound, q CLIP's upper bound. */
    static void unary(ElementType t, MathOp op, MemorySegment s, long so, long ss, MemorySegment d, long dOff, long ds,
                      long n, double p, double q) {
        boolean f32 = t == ElementType.F32;
        double[] x = new double[(int) Math.min(n, BLOCK)];
        for (long i = 0; i < n; i += x.length) {
            int m = (int) Math.min(x.length, n - i);
            load(f32, s, so + i * ss, ss, x, m);
            apply(op, x, m, f32 ? (float) p : p, f32 ? (float) q : q);
            store(f32, d, dOff + i * ds, ds, x, m);
        }
    }

    /** d[i] = a[i] ** b[i] for float rows. */
    static void pow(ElementType t, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                    MemorySegment d, long dOff, long ds, long n) {
        boolean f32 = t == ElementType.F32;
        int len = (int) Math.min(n, BLOCK);
        double[] x = new double[len];
        double[] y = new double[len];
        for (long i = 0; i < n; i += len) {
            int m = (int) Math.min(len, n - i);
            load(f32, a, ao + i * as, as, x, m);
            load(f32, b, bo + i * bs, bs, y, m);
            for (int k = 0; k < m; k++) {
                x[k] = pow(x[k], y[k]);
            }
            store(f32, d, dOff + i * ds, ds, x, m);
        }
    }

    /** d[i] = op(s[i]) for an integer row (ABS, SIGN, FLOOR, CEIL, CLIP to [lo, hi]); results wrap in the element width. */
    static void unaryInt(ElementType t, MathOp op, MemorySegment s, long so, long ss, MemorySegment d, long dOff, long ds,
                         long n, long lo, long hi) {
        long[] x = new long[(int) Math.min(n, BLOCK)];
        for (long i = 0; i < n; i += x.length) {
            int m = (int) Math.min(x.length, n - i);
            loadInts(t, s, so + i * ss, ss, x, m);
            switch (op) {
                case ABS -> {
                    if (!t.isUnsigned()) {
                        for (int k = 0; k < m; k++) {
                            x[k] = Math.abs(x[k]);
                        }
                    }
                }
                case FLOOR, CEIL -> {
                    // integers are whole already
                }
                case SIGN -> {
                    for (int k = 0; k < m; k++) {
                        x[k] = t.isUnsigned() ? (x[k] != 0 ? 1 : 0) : Long.signum(x[k]);
                    }
                }
                case CLIP -> {
                    // numpy's order: max with lo, then min with hi (lo > hi gives hi)
                    if (t.isUnsigned64()) {
                        for (int k = 0; k < m; k++) {
                            long v = Long.compareUnsigned(x[k], lo) < 0 ? lo : x[k];
                            x[k] = Long.compareUnsigned(v, hi) > 0 ? hi : v;
                        }
                    } else {
                        for (int k = 0; k < m; k++) {
                            x[k] = Math.min(Math.max(x[k], lo), hi);
                        }
                    }
                }
                default -> throw new IllegalArgumentException("no integer " + op.numpyName() + " kernel");
            }
            storeInts(t, d, dOff + i * ds, ds, x, m);
        }
    }

    private static void apply(MathOp op, double[] x, int m, double p, double q) {
        switch (op) {
            case SQRT -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.sqrt(x[k]);
                }
            }
            case EXP -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.exp(x[k]);
                }
            }
            case LOG -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.log(x[k]);
                }
            }
            case LOG1P -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.log1p(x[k]);
                }
            }
            case EXPM1 -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.expm1(x[k]);
                }
            }
            case ABS -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.abs(x[k]);
                }
            }
            case SIGN -> {
                for (int k = 0; k < m; k++) {
                    double v = x[k];
                    x[k] = v > 0 ? 1.0 : v < 0 ? -1.0 : v == 0 ? 0.0 : v;
                }
            }
            case SIN -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.sin(x[k]);
                }
            }
            case COS -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.cos(x[k]);
                }
            }
            case TAN -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.tan(x[k]);
                }
            }
            case TANH -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.tanh(x[k]);
                }
            }
            case FLOOR -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.floor(x[k]);
                }
            }
            case CEIL -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.ceil(x[k]);
                }
            }
            case RINT -> {
                for (int k = 0; k < m; k++) {
                    x[k] = Math.rint(x[k]);
                }
            }
            case POW -> powScalar(x, m, p);
            case CLIP -> clip(x, m, p, q);
        }
    }

    /** numpy's pow of a C double: unlike Math.pow, 1 ** y == 1 and (-1) ** ±inf == 1. */
    static double pow(double x, double y) {
        return x == 1.0 || x == -1.0 && Double.isInfinite(y) ? 1.0 : Math.pow(x, y);
    }

    private static void powScalar(double[] x, int m, double y) {
        // numpy's fast paths for a scalar exponent: 0.5 is sqrt (sqrt(-0.0) == -0.0, sqrt(-inf) is NaN, unlike pow)
        if (y == 0.5) {
            for (int k = 0; k < m; k++) {
                x[k] = Math.sqrt(x[k]);
            }
        } else if (y == 2.0) {
            for (int k = 0; k < m; k++) {
                x[k] = x[k] * x[k];
            }
        } else if (y != 1.0) {
            for (int k = 0; k < m; k++) {
                x[k] = pow(x[k], y);
            }
        }
    }

    /** numpy's clip: NaN elements and NaN bounds give NaN; an element equal to a bound is kept (its zero sign too). */
    static void clip(double[] x, int m, double lo, double hi) {
        if (Double.isNaN(lo) || Double.isNaN(hi)) {
            java.util.Arrays.fill(x, 0, m, Double.NaN);
            return;
        }
        for (int k = 0; k < m; k++) {
            double v = x[k] < lo ? lo : x[k];
            x[k] = v > hi ? hi : v;
        }
    }

    private static void load(boolean f32, MemorySegment s, long off, long stride, double[] x, int m) {
        if (!f32 && stride == 8) {
            MemorySegment.copy(s, JAVA_DOUBLE, off, x, 0, m);
        } else if (f32 && stride == 4) {
            // a bulk copy, then a widening loop C2 vectorizes
            float[] f = new float[m];
            MemorySegment.copy(s, JAVA_FLOAT, off, f, 0, m);
            for (int k = 0; k < m; k++) {
                x[k] = f[k];
            }
        } else if (f32) {
            for (int k = 0; k < m; k++) {
                x[k] = s.get(JAVA_FLOAT, off + k * stride);
            }
        } else {
            for (int k = 0; k < m; k++) {
                x[k] = s.get(JAVA_DOUBLE, off + k * stride);
            }
        }
    }

    private static void store(boolean f32, MemorySegment d, long off, long stride, double[] x, int m) {
        if (!f32 && stride == 8) {
            MemorySegment.copy(x, 0, d, JAVA_DOUBLE, off, m);
        } else if (f32 && stride == 4) {
            float[] f = new float[m];
            for (int k = 0; k < m; k++) {
                f[k] = (float) x[k];
            }
            MemorySegment.copy(f, 0, d, JAVA_FLOAT, off, m);
        } else if (f32) {
            for (int k = 0; k < m; k++) {
                d.set(JAVA_FLOAT, off + k * stride, (float) x[k]);
            }
        } else {
            for (int k = 0; k < m; k++) {
                d.set(JAVA_DOUBLE, off + k * stride, x[k]);
            }
        }
    }

    /** Integers as their values: signed types sign-extended, unsigned ones zero-extended (U64 as bits). */
    private static void loadInts(ElementType t, MemorySegment s, long off, long stride, long[] x, int m) {
        for (int k = 0; k < m; k++) {
            long o = off + k * stride;
            x[k] = switch (t) {
                case I64, U64 -> s.get(JAVA_LONG, o);
                case I32 -> s.get(JAVA_INT, o);
                case U32 -> s.get(JAVA_INT, o) & 0xFFFF_FFFFL;
                case I16 -> s.get(JAVA_SHORT, o);
                case U16 -> s.get(JAVA_SHORT, o) & 0xFFFFL;
                case I8 -> s.get(JAVA_BYTE, o);
                case U8 -> s.get(JAVA_BYTE, o) & 0xFFL;
                default -> throw new IllegalArgumentException("no integer kernel for " + t);
            };
        }
    }

    private static void storeInts(ElementType t, MemorySegment d, long off, long stride, long[] x, int m) {
        for (int k = 0; k < m; k++) {
            long o = off + k * stride;
            switch (t) {
                case I64, U64 -> d.set(JAVA_LONG, o, x[k]);
                case I32, U32 -> d.set(JAVA_INT, o, (int) x[k]);
                case I16, U16 -> d.set(JAVA_SHORT, o, (short) x[k]);
                case I8, U8 -> d.set(JAVA_BYTE, o, (byte) x[k]);
                default -> throw new IllegalArgumentException("no integer kernel for " + t);
            }
        }
    }
}
