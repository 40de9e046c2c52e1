package dev.sharedarrays;

import dev.sharedarrays.internal.array.ElementMath;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.MathOp;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * Element-wise math with numpy's names and results: {@code sqrt exp log log1p expm1 abs sign sin
 * cos tan tanh floor ceil rint}, {@code pow} and {@code clip}.
 *
 * <p><b>Results.</b> Each function has two forms. {@code sqrt(a)} returns a new process-local
 * array of a's dtype and shape (anonymous memory the garbage collector frees; nothing to close).
 * {@code sqrt(a, out)} writes into {@code out} and returns it, as numpy's {@code out=}: out has
 * a's dtype, and a's shape or a shape a broadcasts to by numpy's rule; out may be a itself
 * (in place) or any view, also one that overlaps a (a is then read through a temporary copy, as
 * numpy does).
 *
 * <p><b>Types.</b> F64 and F32 for every function; F32 results are those of float32 in numpy
 * (sqrt, abs, sign, floor, ceil, rint, clip exactly; the others within 2 ulp). Integer arrays
 * take {@code abs} (wrapping as numpy: abs of I8 -128 is -128), {@code sign}, {@code clip},
 * and {@code floor}/{@code ceil} (their values, as numpy 2.4); the other functions refuse them
 * with a {@link DTypeMismatchException}, where numpy would return float64: convert first with
 * {@code a.astype(F64.TYPE)}. NaN and infinities follow numpy (C): {@code sqrt(-1)} is NaN,
 * {@code sign(-0.0)} is 0.0, {@code pow(1, NaN)} is 1, {@code clip} of NaN is NaN.
 *
 * <p><b>Locks and threads.</b> Each call holds out's write lock and the inputs' read locks, taken
 * in the order of array id (one lock when out is the input). Static methods; any thread.
 *
 * <p><b>Errors.</b> {@link DTypeMismatchException} if out or b has another dtype than a, or a
 * function does not take a's dtype; {@link ShapeMismatchException} naming both shapes if an input
 * does not broadcast to out's shape; {@link IllegalStateException} if an array is closed;
 * {@link NullPointerException} for a null array.
 */
public final class ArrayMath {
    private ArrayMath() {
    }

    /** The square root of each element; NaN for negative elements. */
    public static <T extends DType<T>> SharedNDArray<T> sqrt(SharedNDArray<T> a) {
        return unary(MathOp.SQRT, a, null, 0, 0);
    }

    /** The square root of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> sqrt(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.SQRT, a, out, 0, 0);
    }

    /** e to the power of each element. */
    public static <T extends DType<T>> SharedNDArray<T> exp(SharedNDArray<T> a) {
        return unary(MathOp.EXP, a, null, 0, 0);
    }

    /** e to the power of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> exp(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.EXP, a, out, 0, 0);
    }

    /** The natural logarithm of each element; -inf for 0, NaN for negative elements. */
    public static <T extends DType<T>> SharedNDArray<T> log(SharedNDArray<T> a) {
        return unary(MathOp.LOG, a, null, 0, 0);
    }

    /** The natural logarithm of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> log(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.LOG, a, out, 0, 0);
    }

    /** log(1 + x) of each element, accurate for small x. */
    public static <T extends DType<T>> SharedNDArray<T> log1p(SharedNDArray<T> a) {
        return unary(MathOp.LOG1P, a, null, 0, 0);
    }

    /** log(1 + x) of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> log1p(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.LOG1P, a, out, 0, 0);
    }

    /** exp(x) - 1 of each element, accurate for small x. */
    public static <T extends DType<T>> SharedNDArray<T> expm1(SharedNDArray<T> a) {
        return unary(MathOp.EXPM1, a, null, 0, 0);
    }

    /** exp(x) - 1 of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> expm1(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.EXPM1, a, out, 0, 0);
    }

    /** The absolute value of each element; integer arrays wrap (abs of I8 -128 is -128), unsigned ones are unchanged. */
    public static <T extends DType<T>> SharedNDArray<T> abs(SharedNDArray<T> a) {
        return unary(MathOp.ABS, a, null, 0, 0);
    }

    /** The absolute value of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> abs(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.ABS, a, out, 0, 0);
    }

    /** -1, 0 or 1 by the sign of each element (0.0 for both zeros, NaN for NaN). */
    public static <T extends DType<T>> SharedNDArray<T> sign(SharedNDArray<T> a) {
        return unary(MathOp.SIGN, a, null, 0, 0);
    }

    /** The sign of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> sign(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.SIGN, a, out, 0, 0);
    }

    /** The sine of each element (radians). */
    public static <T extends DType<T>> SharedNDArray<T> sin(SharedNDArray<T> a) {
        return unary(MathOp.SIN, a, null, 0, 0);
    }

    /** The sine of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> sin(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.SIN, a, out, 0, 0);
    }

    /** The cosine of each element (radians). */
    public static <T extends DType<T>> SharedNDArray<T> cos(SharedNDArray<T> a) {
        return unary(MathOp.COS, a, null, 0, 0);
    }

    /** The cosine of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> cos(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.COS, a, out, 0, 0);
    }

    /** The tangent of each element (radians). */
    public static <T extends DType<T>> SharedNDArray<T> tan(SharedNDArray<T> a) {
        return unary(MathOp.TAN, a, null, 0, 0);
    }

    /** The tangent of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> tan(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.TAN, a, out, 0, 0);
    }

    /** The hyperbolic tangent of each element. */
    public static <T extends DType<T>> SharedNDArray<T> tanh(SharedNDArray<T> a) {
        return unary(MathOp.TANH, a, null, 0, 0);
    }

    /** The hyperbolic tangent of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> tanh(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.TANH, a, out, 0, 0);
    }

    /** The largest whole number not above each element (floor(-0.5) is -1.0); integer arrays keep their values. */
    public static <T extends DType<T>> SharedNDArray<T> floor(SharedNDArray<T> a) {
        return unary(MathOp.FLOOR, a, null, 0, 0);
    }

    /** The floor of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> floor(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.FLOOR, a, out, 0, 0);
    }

    /** The smallest whole number not below each element (ceil(-0.5) is -0.0); integer arrays keep their values. */
    public static <T extends DType<T>> SharedNDArray<T> ceil(SharedNDArray<T> a) {
        return unary(MathOp.CEIL, a, null, 0, 0);
    }

    /** The ceiling of each element of a, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> ceil(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.CEIL, a, out, 0, 0);
    }

    /** Each element rounded to the nearest whole number, ties to even (rint(2.5) is 2.0). */
    public static <T extends DType<T>> SharedNDArray<T> rint(SharedNDArray<T> a) {
        return unary(MathOp.RINT, a, null, 0, 0);
    }

    /** Each element of a rounded to the nearest whole number, ties to even, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> rint(SharedNDArray<T> a, SharedNDArray<T> out) {
        return unary(MathOp.RINT, a, out, 0, 0);
    }

    /**
     * Each element to the power {@code exponent} (for F32 the exponent is rounded to float, as
     * numpy casts a Python float); as numpy, an exponent of 0.5 is {@code sqrt} (so
     * {@code pow(-0.0, 0.5)} is -0.0).
     *
     * @throws DTypeMismatchException for integer arrays
     */
    public static <T extends DType<T>> SharedNDArray<T> pow(SharedNDArray<T> a, double exponent) {
        return unary(MathOp.POW, a, null, exponent, 0);
    }

    /** Each element of a to the power {@code exponent}, into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> pow(SharedNDArray<T> a, double exponent, SharedNDArray<T> out) {
        return unary(MathOp.POW, a, out, exponent, 0);
    }

    /**
     * a[i] to the power b[i], a and b broadcast together (numpy's rule); a new array of the broadcast shape.
     *
     * @throws DTypeMismatchException for integer arrays, or if b's dtype is not a's
     * @throws ShapeMismatchException if the shapes do not broadcast
     */
    public static <T extends DType<T>> SharedNDArray<T> pow(SharedNDArray<T> a, SharedNDArray<T> b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        long[] shape = broadcastShape(a.shape(), b.shape());
        return binary(a, b, null, shape);
    }

    /** a[i] to the power b[i] into out, a and b broadcast to out's shape; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> pow(SharedNDArray<T> a, SharedNDArray<T> b, SharedNDArray<T> out) {
        Objects.requireNonNull(out, "out");
        return binary(a, b, out, out.shape());
    }

    /**
     * Each element limited to [lo, hi], as numpy's clip: NaN elements stay NaN, a NaN bound gives
     * NaN, lo > hi gives hi. Integer arrays take whole-number bounds only.
     *
     * @throws DTypeMismatchException if a is an integer array and a bound is not a whole number
     *         (numpy would return float64)
     * @throws IllegalArgumentException as {@link #clip(SharedNDArray, long, long)}
     */
    public static <T extends DType<T>> SharedNDArray<T> clip(SharedNDArray<T> a, double lo, double hi) {
        return clip(a, lo, hi, null);
    }

    /** Each element of a limited to [lo, hi], into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> clip(SharedNDArray<T> a, double lo, double hi, SharedNDArray<T> out) {
        Objects.requireNonNull(a, "a");
        if (a.type().isFloatingPoint()) {
            return unary(MathOp.CLIP, a, out, lo, hi);
        }
        for (double v : new double[] {lo, hi}) {
            if (v != Math.rint(v)) {
                throw new DTypeMismatchException("clip of a " + a.dtype() + " array to [" + lo + ", " + hi + "]: the bound " + v
                        + " is not a whole number (numpy would return float64); pass whole numbers, or convert with astype(F64.TYPE)");
            }
        }
        return clip(a, (long) lo, (long) hi, out);
    }

    /**
     * Each element limited to [lo, hi] (for float arrays, the bounds as doubles). As numpy, a
     * bound outside an integer type's range is allowed on the side where it changes nothing.
     *
     * @throws IllegalArgumentException for an integer array if {@code lo > max} or
     *         {@code hi < min} of its type (numpy's OverflowError)
     */
    public static <T extends DType<T>> SharedNDArray<T> clip(SharedNDArray<T> a, long lo, long hi) {
        return clip(a, lo, hi, null);
    }

    /** Each element of a limited to [lo, hi], into out; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> clip(SharedNDArray<T> a, long lo, long hi, SharedNDArray<T> out) {
        Objects.requireNonNull(a, "a");
        ElementType t = a.type();
        if (t.isFloatingPoint()) {
            return unary(MathOp.CLIP, a, out, lo, hi);
        }
        if (lo > t.maxValue() || hi < t.minValue()) {
            throw new IllegalArgumentException("clip of a " + t + " array to [" + lo + ", " + hi + "]: the bound "
                    + (lo > t.maxValue() ? lo : hi) + " is out of range for " + t + " (" + t.minValue() + " to " + t.maxValue()
                    + "); numpy refuses it too");
        }
        return integers(MathOp.CLIP, a, out, Math.max(lo, t.minValue()), Math.min(hi, t.maxValue()));
    }

    private static <T extends DType<T>> SharedNDArray<T> unary(MathOp op, SharedNDArray<T> a, SharedNDArray<T> out, double p, double q) {
        Objects.requireNonNull(a, "a");
        ElementType t = a.type();
        if (!t.isFloatingPoint()) {
            if (!op.takesIntegers() || !isInteger(t)) {
                throw new DTypeMismatchException(op.numpyName() + " takes F64 and F32 arrays, not " + t + " (" + t.descr()
                        + "); numpy would return float64: convert first with a.astype(F64.TYPE)");
            }
            return integers(op, a, out, 0, 0);
        }
        return run(op, a, out, (o, lo, in) -> ElementMath.unary(t, op, in, o, lo, p, q));
    }

    private static <T extends DType<T>> SharedNDArray<T> integers(MathOp op, SharedNDArray<T> a, SharedNDArray<T> out, long lo, long hi) {
        ElementType t = a.type();
        return run(op, a, out, (o, l, in) -> ElementMath.unaryInt(t, op, in, o, l, lo, hi));
    }

    private static boolean isInteger(ElementType t) {
        return t.kind() == 'i' || t.kind() == 'u';
    }

    /** The kernel call of one function: writes out (memory o, layout lo) from the input. */
    private interface Body {
        void run(MemorySegment o, StridedLayout lo, ElementMath.In in);
    }

    private static <T extends DType<T>> SharedNDArray<T> run(MathOp op, SharedNDArray<T> a, SharedNDArray<T> out, Body body) {
        SharedNDArray<T> target = out != null ? out : newArray(a.dtype(), a.shape());
        try {
            checkOut(op.numpyName(), a, target);
            StridedLayout la = operand(op.numpyName(), "the input", a, target.shape());
            MemorySegment am = a.mem();
            MemorySegment om = target.mem();
            ElementMath.In in = new ElementMath.In(am, la, a.id() == target.id());
            target.locks().writeReading(a.locks(), () -> body.run(om, target.layout(), in));
        } catch (RuntimeException | Error e) {
            if (out == null) {
                target.close();
            }
            throw e;
        }
        return target;
    }

    private static <T extends DType<T>> SharedNDArray<T> binary(SharedNDArray<T> a, SharedNDArray<T> b, SharedNDArray<T> out, long[] shape) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        ElementType t = a.type();
        if (!t.isFloatingPoint()) {
            throw new DTypeMismatchException("pow takes F64 and F32 arrays, not " + t + " (" + t.descr()
                    + "); convert first with a.astype(F64.TYPE)");
        }
        if (b.type() != t) {
            throw new DTypeMismatchException("pow of a " + t + " array (" + t.descr() + ") by a " + b.dtype() + " array ("
                    + b.dtype().descr() + "): the exponent array must have the same dtype; convert it with astype");
        }
        SharedNDArray<T> target = out != null ? out : newArray(a.dtype(), shape);
        try {
            checkOut("pow", a, target);
            StridedLayout la = operand("pow", "the base", a, shape);
            StridedLayout lb = operand("pow", "the exponent", b, shape);
            MemorySegment am = a.mem();
            MemorySegment bm = b.mem();
            MemorySegment om = target.mem();
            ElementMath.In x = new ElementMath.In(am, la, a.id() == target.id());
            ElementMath.In y = new ElementMath.In(bm, lb, b.id() == target.id());
            target.locks().writeReading(a.locks(), b.locks(), () -> ElementMath.pow(t, x, y, om, target.layout()));
        } catch (RuntimeException | Error e) {
            if (out == null) {
                target.close();
            }
            throw e;
        }
        return target;
    }

    private static void checkOut(String fn, SharedNDArray<?> a, SharedNDArray<?> out) {
        if (out.type() != a.type()) {
            throw new DTypeMismatchException(fn + " of a " + a.dtype() + " array (" + a.dtype().descr() + ") into an out of "
                    + out.dtype() + " (" + out.dtype().descr() + "): out must have the input's dtype (numpy's out= would cast; "
                    + "this library does not): pass an out of " + a.dtype() + ", or convert the result with astype");
        }
    }

    /** x's layout stretched to shape. */
    private static StridedLayout operand(String fn, String what, SharedNDArray<?> x, long[] shape) {
        StridedLayout l = x.layout();
        if (Arrays.equals(l.shape(), shape)) {
            return l;
        }
        if (!ElementMath.broadcastsTo(l.shape(), shape)) {
            throw new ShapeMismatchException(fn + ": " + what + " of shape " + Arrays.toString(l.shape())
                    + " does not broadcast to out's shape " + Arrays.toString(shape)
                    + " (numpy's rule: from the last axis, each dimension equal or 1; out is never stretched)");
        }
        return ElementMath.broadcastTo(l, shape);
    }

    // TODO(merge): the lead's Shapes.broadcast replaces this
    private static long[] broadcastShape(long[] a, long[] b) {
        int n = Math.max(a.length, b.length);
        long[] s = new long[n];
        for (int i = 1; i <= n; i++) {
            long x = i <= a.length ? a[a.length - i] : 1;
            long y = i <= b.length ? b[b.length - i] : 1;
            if (x != y && x != 1 && y != 1) {
                throw new ShapeMismatchException("pow: shapes " + Arrays.toString(a) + " and " + Arrays.toString(b)
                        + " do not broadcast (numpy's rule: from the last axis, each pair of dimensions equal or one of them 1)");
            }
            s[n - i] = x == 1 ? y : x;
        }
        return s;
    }

    // TODO(merge): Local.empty(dtype, shape) once the lead's process-local arrays land
    private static <T extends DType<T>> SharedNDArray<T> newArray(T dtype, long[] shape) {
        return SharedArrays.create(dtype, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS));
    }
}
