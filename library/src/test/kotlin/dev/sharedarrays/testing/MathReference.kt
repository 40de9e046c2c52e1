package dev.sharedarrays.testing

import dev.sharedarrays.ArrayMath
import dev.sharedarrays.DType
import dev.sharedarrays.F64
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U64

/** The element-wise math functions, by numpy's names, and how closely a result must match. */
enum class MathFn(val numpy: String, val ints: Boolean, val exact: Boolean) {
    SQRT("sqrt", false, true),
    EXP("exp", false, false),
    LOG("log", false, false),
    LOG1P("log1p", false, false),
    EXPM1("expm1", false, false),
    ABS("abs", true, true),
    SIGN("sign", true, true),
    SIN("sin", false, false),
    COS("cos", false, false),
    TAN("tan", false, false),
    TANH("tanh", false, false),
    FLOOR("floor", true, true),
    CEIL("ceil", true, true),
    RINT("rint", false, true),
    POW("power", false, false),
    CLIP("clip", true, true);

    /** True if the result is exact (correctly rounded) for this exponent: numpy's fast paths. */
    fun exactFor(p: Double) = exact || this == POW && (p == 0.5 || p == 2.0 || p == 1.0 || p == 0.0)

    /** Calls ArrayMath: p is POW's exponent or CLIP's lower bound, q CLIP's upper bound. */
    @Suppress("UNCHECKED_CAST")
    fun call(a: SharedNDArray<*>, out: SharedNDArray<*>?, p: Double = 0.0, q: Double = 0.0): SharedNDArray<*> {
        val x = a as SharedNDArray<F64>
        val o = out as SharedNDArray<F64>?
        return when (this) {
            SQRT -> if (o == null) ArrayMath.sqrt(x) else ArrayMath.sqrt(x, o)
            EXP -> if (o == null) ArrayMath.exp(x) else ArrayMath.exp(x, o)
            LOG -> if (o == null) ArrayMath.log(x) else ArrayMath.log(x, o)
            LOG1P -> if (o == null) ArrayMath.log1p(x) else ArrayMath.log1p(x, o)
            EXPM1 -> if (o == null) ArrayMath.expm1(x) else ArrayMath.expm1(x, o)
            ABS -> if (o == null) ArrayMath.abs(x) else ArrayMath.abs(x, o)
            SIGN -> if (o == null) ArrayMath.sign(x) else ArrayMath.sign(x, o)
            SIN -> if (o == null) ArrayMath.sin(x) else ArrayMath.sin(x, o)
            COS -> if (o == null) ArrayMath.cos(x) else ArrayMath.cos(x, o)
            TAN -> if (o == null) ArrayMath.tan(x) else ArrayMath.tan(x, o)
            TANH -> if (o == null) ArrayMath.tanh(x) else ArrayMath.tanh(x, o)
            FLOOR -> if (o == null) ArrayMath.floor(x) else ArrayMath.floor(x, o)
            CEIL -> if (o == null) ArrayMath.ceil(x) else ArrayMath.ceil(x, o)
            RINT -> if (o == null) ArrayMath.rint(x) else ArrayMath.rint(x, o)
            POW -> if (o == null) ArrayMath.pow(x, p) else ArrayMath.pow(x, p, o)
            CLIP -> if (o == null) ArrayMath.clip(x, p, q) else ArrayMath.clip(x, p, q, o)
        }
    }
}

/** The functions computed the plain way, with numpy's (C's) special cases. */
object MathReference {
    /** numpy's result for a float element (F32: computed in double and rounded, as float32 is within an ulp of it). */
    fun float(fn: MathFn, x: Double, f32: Boolean, p: Double = 0.0, q: Double = 0.0): Double {
        val pp = if (f32) p.toFloat().toDouble() else p
        val qq = if (f32) q.toFloat().toDouble() else q
        val r = when (fn) {
            MathFn.SQRT -> Math.sqrt(x)
            MathFn.EXP -> Math.exp(x)
            MathFn.LOG -> Math.log(x)
            MathFn.LOG1P -> Math.log1p(x)
            MathFn.EXPM1 -> Math.expm1(x)
            MathFn.ABS -> Math.abs(x)
            MathFn.SIGN -> if (x > 0) 1.0 else if (x < 0) -1.0 else if (x == 0.0) 0.0 else x
            MathFn.SIN -> Math.sin(x)
            MathFn.COS -> Math.cos(x)
            MathFn.TAN -> Math.tan(x)
            MathFn.TANH -> Math.tanh(x)
            MathFn.FLOOR -> Math.floor(x)
            MathFn.CEIL -> Math.ceil(x)
            MathFn.RINT -> Math.rint(x)
            MathFn.POW -> if (pp == 0.5) Math.sqrt(x) else pow(x, pp)
            MathFn.CLIP -> if (pp.isNaN() || qq.isNaN()) Double.NaN else {
                val v = if (x < pp) pp else x
                if (v > qq) qq else v
            }
        }
        return if (f32) r.toFloat().toDouble() else r
    }

    /** C's pow: unlike Math.pow, 1 ** y == 1 and (-1) ** ±inf == 1. */
    fun pow(x: Double, y: Double): Double = if (x == 1.0 || x == -1.0 && y.isInfinite()) 1.0 else Math.pow(x, y)

    /** numpy's result for an integer element (values as RefArray keeps them: U64 as bits); lo, hi within range. */
    fun int(fn: MathFn, t: DType<*>, v: Long, lo: Long = 0, hi: Long = 0): Long = when (fn) {
        MathFn.ABS -> if (t.isUnsigned) v else RefMath.wrap(t, Math.abs(v))
        MathFn.SIGN -> if (t.isUnsigned) (if (v != 0L) 1L else 0L) else java.lang.Long.signum(v).toLong()
        MathFn.FLOOR, MathFn.CEIL -> v
        MathFn.CLIP -> if (t == U64.TYPE) {
            val m = if (java.lang.Long.compareUnsigned(v, lo) < 0) lo else v
            if (java.lang.Long.compareUnsigned(m, hi) > 0) hi else m
        } else {
            minOf(maxOf(v, lo), hi)
        }
        else -> throw IllegalArgumentException("$fn has no integer form")
    }

    /** Distance in ulps between two results: 0 if both are NaN, Long.MAX_VALUE if one is. */
    fun ulps(a: Double, b: Double, f32: Boolean): Long {
        if (a.isNaN() || b.isNaN()) return if (a.isNaN() && b.isNaN()) 0 else Long.MAX_VALUE
        // bit patterns as one ordered line through zero (-0.0 and +0.0 are both 0)
        val (x, y) = if (f32) {
            fun ordered(bits: Int) = if (bits < 0) Int.MIN_VALUE.toLong() - bits else bits.toLong()
            ordered(a.toFloat().toRawBits()) to ordered(b.toFloat().toRawBits())
        } else {
            fun ordered(bits: Long) = if (bits < 0) Long.MIN_VALUE - bits else bits
            ordered(a.toRawBits()) to ordered(b.toRawBits())
        }
        return try {
            Math.abs(Math.subtractExact(x, y))
        } catch (e: ArithmeticException) {
            Long.MAX_VALUE
        }
    }

    /** Bit-identical, with every NaN equal to every other (numpy and Java may differ in NaN payloads and signs). */
    fun sameBits(a: Double, b: Double): Boolean = a.isNaN() && b.isNaN() || a.toRawBits() == b.toRawBits()
}
