package dev.sharedarrays.testing

import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.U64
import java.math.BigInteger

/**
 * The reference for operations along an axis, written the plain way over a view's row-major
 * values: the lanes of an axis, and numpy's products, variances, arg-reductions, cumulative sums
 * and sorts of one lane.
 */
object RefLanes {
    /** Row-major positions of each lane along [axis], lanes in row-major order of the other axes. */
    fun lanes(shape: List<Long>, axis: Int): List<IntArray> {
        val rest = shape.filterIndexed { k, _ -> k != axis }
        val count = rest.fold(1L, Long::times).toInt()
        return (0 until count).map { k ->
            val small = unravel(k, rest)
            IntArray(shape[axis].toInt()) { i ->
                val idx = LongArray(shape.size)
                var j = 0
                for (a in shape.indices) idx[a] = if (a == axis) i.toLong() else small[j++]
                ravel(idx, shape)
            }
        }
    }

    /** An element as numpy's float64 sees it (U64 as its unsigned value). */
    fun asDouble(t: DType<*>, v: Any): Double = when {
        v is Double -> v
        t == U64.TYPE -> RefMath.unsignedToDouble(v as Long)
        else -> (v as Long).toDouble()
    }

    /** numpy's prod as a double: floats multiplied in order; integers in wrapping 64 bits (unsigned types as uint64). */
    fun prod(t: DType<*>, values: List<Any>): Double = if (t.isFloatingPoint) {
        values.fold(1.0) { p, v -> p * (v as Double) }
    } else {
        val p = prodBits(values)
        if (t.isUnsigned) BigInteger(java.lang.Long.toUnsignedString(p)).toDouble() else p.toDouble()
    }

    fun prodBits(values: List<Any>): Long = values.fold(1L) { p, v -> p * (v as Long) }

    /** numpy's var with ddof = 0 (the divisor is n - ddof). */
    fun variance(t: DType<*>, values: List<Any>, ddof: Int = 0): Double {
        val xs = values.map { asDouble(t, it) }
        val mean = xs.sum() / xs.size
        return xs.sumOf { (it - mean) * (it - mean) } / (xs.size - ddof)
    }

    /** numpy's argmin/argmax: the first best element, or the first NaN. */
    fun arg(t: DType<*>, values: List<Any>, max: Boolean): Long {
        if (t.isFloatingPoint) {
            val nan = values.indexOfFirst { (it as Double).isNaN() }
            if (nan >= 0) return nan.toLong()
        }
        var best = 0
        for (i in 1 until values.size) {
            val better = if (t.isFloatingPoint) {
                val x = values[i] as Double
                val b = values[best] as Double
                if (max) x > b else x < b
            } else {
                val c = RefMath.compare(t, values[i] as Long, values[best] as Long)
                if (max) c > 0 else c < 0
            }
            if (better) best = i
        }
        return best.toLong()
    }

    /** numpy's result dtype name of cumsum: F64/F32 keep theirs, signed integers I64, unsigned U64. */
    fun cumsumType(t: DType<*>): String = if (t.isFloatingPoint) t.name() else if (t.isUnsigned) "U64" else "I64"

    /** numpy's cumsum of one lane in its default dtype: F32 rounds after every add, integers wrap in 64 bits. */
    fun cumsum(t: DType<*>, values: List<Any>): List<Any> {
        val out = ArrayList<Any>(values.size)
        if (t.isFloatingPoint) {
            var s = 0.0
            for (v in values) {
                s = if (t == F32.TYPE) (s.toFloat() + (v as Double).toFloat()).toDouble() else s + (v as Double)
                out += s
            }
        } else {
            var s = 0L
            for (v in values) {
                s += v as Long
                out += s
            }
        }
        return out
    }

    /** numpy's sort of one lane: ascending, NaNs last; U64 by its unsigned value. */
    fun sort(t: DType<*>, values: List<Any>): List<Any> = when {
        t.isFloatingPoint -> values.map { it as Double }.sortedWith { a, b -> java.lang.Double.compare(a, b) }
        t == U64.TYPE -> values.map { it as Long }.sortedWith { a, b -> java.lang.Long.compareUnsigned(a, b) }
        else -> values.map { it as Long }.sorted()
    }
}
