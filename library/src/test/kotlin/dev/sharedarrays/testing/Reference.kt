package dev.sharedarrays.testing

import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.I32
import dev.sharedarrays.I8
import dev.sharedarrays.U16
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.U8
import java.math.BigInteger

/**
 * A plain heap model of an array and its views, written independently of the library's
 * stride arithmetic: a view is the list of base positions it shows, in row-major order.
 * Integer elements are kept as their value (unsigned types masked, U64 as bits); floats as
 * doubles (F32 rounded to float).
 */
class RefArray(val dtype: DType<*>, val shape: LongArray) {
    val size = shape.fold(1L, Long::times).toInt()
    val ints = LongArray(size)
    val floats = DoubleArray(size)

    fun get(i: Int): Any = if (dtype.isFloatingPoint) floats[i] else ints[i]

    fun set(i: Int, v: Any) {
        if (dtype.isFloatingPoint) floats[i] = RefMath.roundFloat(dtype, (v as Number).toDouble()) else ints[i] = RefMath.wrap(dtype, v as Long)
    }
}

/** A view of a [RefArray]: its shape and, per row-major position, the base position. */
class RefView(val base: RefArray, val shape: List<Long>, val positions: IntArray) {
    val size get() = positions.size

    fun values(): List<Any> = positions.map { base.get(it) }


    /** Python's slice semantics, from `slice.indices`. */
    fun slice(axis: Int, start: Long?, stop: Long?, step: Long): RefView {
        val picks = pyRange(start, stop, step, shape[axis])
        val newShape = shape.toMutableList().also { it[axis] = picks.size.toLong() }
        val n = newShape.fold(1L, Long::times).toInt()
        val pos = IntArray(n) { f ->
            val idx = unravel(f, newShape)
            idx[axis] = picks[idx[axis].toInt()]
            positions[ravel(idx, shape)]
        }
        return RefView(base, newShape, pos)
    }

    fun select(axis: Int, index: Long): RefView {
        val newShape = shape.filterIndexed { k, _ -> k != axis }
        val n = newShape.fold(1L, Long::times).toInt()
        val pos = IntArray(n) { f ->
            val small = unravel(f, newShape)
            val idx = LongArray(shape.size)
            var j = 0
            for (k in shape.indices) idx[k] = if (k == axis) index else small[j++]
            positions[ravel(idx, shape)]
        }
        return RefView(base, newShape, pos)
    }

    fun transpose(perm: IntArray): RefView {
        val newShape = perm.map { shape[it] }
        val pos = IntArray(size) { f ->
            val j = unravel(f, newShape)
            val idx = LongArray(shape.size)
            for (i in perm.indices) idx[perm[i]] = j[i]
            positions[ravel(idx, shape)]
        }
        return RefView(base, newShape, pos)
    }

    fun reshape(newShape: List<Long>) = RefView(base, newShape, positions)

    companion object {
        fun whole(base: RefArray) = RefView(base, base.shape.toList(), IntArray(base.size) { it })

        fun pyRange(start: Long?, stop: Long?, step: Long, len: Long): List<Long> {
            val (lower, upper) = if (step > 0) 0L to len else -1L to len - 1
            fun norm(v: Long?, default: Long): Long {
                if (v == null) return default
                val x = if (v < 0) v + len else v
                return x.coerceIn(lower, upper)
            }
            val s = norm(start, if (step < 0) upper else lower)
            val e = norm(stop, if (step < 0) lower else upper)
            val out = mutableListOf<Long>()
            var i = s
            while (if (step > 0) i < e else i > e) {
                out += i
                i += step
            }
            return out
        }
    }
}

/** Row-major position of a multi-index. */
fun ravel(idx: LongArray, shape: List<Long>): Int {
    var f = 0L
    for (k in shape.indices) f = f * shape[k] + idx[k]
    return f.toInt()
}

/** Multi-index of a row-major position. */
fun unravel(flat: Int, shape: List<Long>): LongArray {
    val idx = LongArray(shape.size)
    var f = flat.toLong()
    for (k in shape.indices.reversed()) {
        idx[k] = f % shape[k]
        f /= shape[k]
    }
    return idx
}

/** The element semantics the library promises, computed the plain way. */
object RefMath {
    fun bits(t: DType<*>) = t.itemSize() * 8

    fun wrap(t: DType<*>, v: Long): Long {
        val b = bits(t)
        if (b == 64) return v
        val masked = v and ((1L shl b) - 1)
        return if (t.isUnsigned) masked else (masked shl (64 - b)) shr (64 - b)
    }

    fun roundFloat(t: DType<*>, v: Double): Double = if (t == F32.TYPE) v.toFloat().toDouble() else v

    fun range(t: DType<*>): Pair<Long, Long> = when (t) {
        I8.TYPE -> -128L to 127L
        I16.TYPE -> -32768L to 32767L
        I32.TYPE -> Int.MIN_VALUE.toLong() to Int.MAX_VALUE.toLong()
        U8.TYPE -> 0L to 255L
        U16.TYPE -> 0L to 65535L
        U32.TYPE -> 0L to 0xFFFF_FFFFL
        U64.TYPE -> 0L to Long.MAX_VALUE
        else -> Long.MIN_VALUE to Long.MAX_VALUE
    }

    fun intOp(t: DType<*>, op: RefOp, a: Long, b: Long): Long = wrap(t, when (op) {
        RefOp.ADD -> a + b
        RefOp.SUB -> a - b
        RefOp.MUL -> a * b
        RefOp.COPY -> b
        RefOp.DIV -> when {
            t == U64.TYPE -> java.lang.Long.divideUnsigned(a, b)
            t.isUnsigned -> a / b
            else -> Math.floorDiv(a, b)
        }
    })

    fun floatOp(t: DType<*>, op: RefOp, a: Double, b: Double): Double = if (t == F32.TYPE) {
        val x = a.toFloat()
        val y = b.toFloat()
        when (op) { RefOp.ADD -> x + y; RefOp.SUB -> x - y; RefOp.MUL -> x * y; RefOp.DIV -> x / y; RefOp.COPY -> y }.toDouble()
    } else {
        when (op) { RefOp.ADD -> a + b; RefOp.SUB -> a - b; RefOp.MUL -> a * b; RefOp.DIV -> a / b; RefOp.COPY -> b }
    }

    fun unsignedToDouble(v: Long): Double = BigInteger(java.lang.Long.toUnsignedString(v)).toDouble()

    /** numpy's sum: wrapping 64-bit for integers, then a double. */
    fun sum(t: DType<*>, values: List<Any>): Double = if (t.isFloatingPoint) {
        values.sumOf { it as Double }
    } else {
        val s = values.fold(0L) { acc, v -> acc + (v as Long) }
        if (t == U64.TYPE) unsignedToDouble(s) else s.toDouble()
    }

    fun compare(t: DType<*>, a: Long, b: Long): Int = if (t == U64.TYPE) java.lang.Long.compareUnsigned(a, b) else a.compareTo(b)

    fun isF64(t: DType<*>) = t == F64.TYPE
}

/** The in-place operations the reference models, in the order the tests draw them. */
enum class RefOp { ADD, SUB, MUL, DIV, COPY }

/** The reductions the reference models, in the order the tests draw them. */
enum class RefReduction { SUM, MEAN, MIN, MAX }
