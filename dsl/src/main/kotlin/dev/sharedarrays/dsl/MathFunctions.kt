package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayMath
import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

// Element-wise math with numpy's names and results (see ArrayMath). Without out, each function
// returns a new process-local array of a's dtype and shape; with out (numpy's out=) it writes
// into out and returns it: out has a's dtype and a's shape or one a broadcasts to, and may be a
// itself (sqrt(a, out = a) works in place) or a view, also one overlapping a. Float functions take
// F64 and F32; for an integer array they throw DTypeMismatchException (convert first with
// astype(F64)). The names overload kotlin.math's on another parameter type: both imports can
// coexist. Each call holds out's write lock and the inputs' read locks.

/** The square root of each element (NaN for negative ones), as `numpy.sqrt`. */
public fun <T : DType<T>> sqrt(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.sqrt(a) else ArrayMath.sqrt(a, out)

/** e to the power of each element, as `numpy.exp`. */
public fun <T : DType<T>> exp(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.exp(a) else ArrayMath.exp(a, out)

/** The natural logarithm of each element (-inf for 0, NaN for negative ones), as `numpy.log`. */
public fun <T : DType<T>> log(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.log(a) else ArrayMath.log(a, out)

/** ln(1 + x) of each element, accurate for small x, as `numpy.log1p`. */
public fun <T : DType<T>> log1p(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.log1p(a) else ArrayMath.log1p(a, out)

/** exp(x) - 1 of each element, accurate for small x, as `numpy.expm1`. */
public fun <T : DType<T>> expm1(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.expm1(a) else ArrayMath.expm1(a, out)

/** The absolute value of each element, as `numpy.abs`; integer arrays too, wrapping (abs of an I8 -128 is -128). */
public fun <T : DType<T>> abs(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.abs(a) else ArrayMath.abs(a, out)

/** -1, 0 or 1 by the sign of each element (0.0 for both zeros, NaN for NaN), as `numpy.sign`; integer arrays too. */
public fun <T : DType<T>> sign(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.sign(a) else ArrayMath.sign(a, out)

/** The sine of each element (radians), as `numpy.sin`. */
public fun <T : DType<T>> sin(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.sin(a) else ArrayMath.sin(a, out)

/** The cosine of each element (radians), as `numpy.cos`. */
public fun <T : DType<T>> cos(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.cos(a) else ArrayMath.cos(a, out)

/** The tangent of each element (radians), as `numpy.tan`. */
public fun <T : DType<T>> tan(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.tan(a) else ArrayMath.tan(a, out)

/** The hyperbolic tangent of each element, as `numpy.tanh`. */
public fun <T : DType<T>> tanh(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.tanh(a) else ArrayMath.tanh(a, out)

/** The largest whole number not above each element (floor(-0.5) is -1.0), as `numpy.floor`; integer arrays keep their values. */
public fun <T : DType<T>> floor(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.floor(a) else ArrayMath.floor(a, out)

/** The smallest whole number not below each element (ceil(-0.5) is -0.0), as `numpy.ceil`; integer arrays keep their values. */
public fun <T : DType<T>> ceil(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.ceil(a) else ArrayMath.ceil(a, out)

/** Each element rounded to the nearest whole number, ties to even (rint(2.5) is 2.0), as `numpy.rint`. */
public fun <T : DType<T>> rint(a: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.rint(a) else ArrayMath.rint(a, out)

/**
 * Each element to the power [exponent], as `numpy.power` with a scalar (for F32 the exponent is
 * rounded to float; 0.5 is sqrt, so pow(-0.0, 0.5) is -0.0). Float arrays only.
 */
public fun <T : DType<T>> pow(a: SharedNDArray<T>, exponent: Number, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.pow(a, exponent.toDouble()) else ArrayMath.pow(a, exponent.toDouble(), out)

/**
 * a[i] to the power b[i], as `numpy.power`: [a] and [b] broadcast together (into [out]'s shape
 * when given). Float arrays of one dtype only.
 */
public fun <T : DType<T>> pow(a: SharedNDArray<T>, b: SharedNDArray<T>, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (out == null) ArrayMath.pow(a, b) else ArrayMath.pow(a, b, out)

/**
 * Each element limited to [[lo], [hi]], as `numpy.clip`: NaN stays NaN, a NaN bound gives NaN,
 * lo > hi gives hi. Integer arrays take whole-number bounds (Int or Long; a Double that is whole);
 * a bound outside the integer type's range is refused where it would change every element
 * (IllegalArgumentException, numpy's OverflowError) and ignored where it changes nothing.
 */
public fun <T : DType<T>> clip(a: SharedNDArray<T>, lo: Number, hi: Number, out: SharedNDArray<T>? = null): SharedNDArray<T> =
    if (lo.isFloatScalar() || hi.isFloatScalar()) {
        if (out == null) ArrayMath.clip(a, lo.toDouble(), hi.toDouble()) else ArrayMath.clip(a, lo.toDouble(), hi.toDouble(), out)
    } else {
        if (out == null) ArrayMath.clip(a, lo.toLong(), hi.toLong()) else ArrayMath.clip(a, lo.toLong(), hi.toLong(), out)
    }
