package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.MathOp;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.MathOps;
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
        return binary(a, b, null);
    }

    /** a[i] to the power b[i] into out, a and b broadcast to out's shape; returns out. */
    public static <T extends DType<T>> SharedNDArray<T> pow(SharedNDArray<T> a, SharedNDArray<T> b, SharedNDArray<T> out) {
        Objects.requireNonNull(out, "out");
        return binary(a, b, out);
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
        return result(MathOps.clip(a.core(), lo, hi, coreOf(out)), out);
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
        return result(MathOps.clip(a.core(), lo, hi, coreOf(out)), out);
    }

    private static <T extends DType<T>> SharedNDArray<T> unary(MathOp op, SharedNDArray<T> a, SharedNDArray<T> out, double p, double q) {
        Objects.requireNonNull(a, "a");
        return result(MathOps.unary(op, a.core(), coreOf(out), p, q), out);
    }

    private static <T extends DType<T>> SharedNDArray<T> binary(SharedNDArray<T> a, SharedNDArray<T> b, SharedNDArray<T> out) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        return result(MathOps.pow(a.core(), b.core(), coreOf(out)), out);
    }

    private static ArrayCore coreOf(SharedNDArray<?> out) {
        return out == null ? null : out.core();
    }

    /** out itself when the caller gave one, else the new array. */
    private static <T extends DType<T>> SharedNDArray<T> result(ArrayCore made, SharedNDArray<T> out) {
        return out != null ? out : SharedNDArray.of(made);
    }
}
