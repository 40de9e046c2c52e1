package dev.sharedarrays

import dev.sharedarrays.testing.MathFn
import dev.sharedarrays.testing.MathReference
import dev.sharedarrays.testing.RefArray
import dev.sharedarrays.testing.RefMath
import dev.sharedarrays.testing.RefView
import dev.sharedarrays.internal.kernel.Simd
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll
import kotlin.random.Random

/**
 * Every element-wise math function against a heap reference (java.lang.Math with numpy's special
 * cases, on copied values), over F64, F32 and the integer types (abs, sign, floor, ceil, clip),
 * shapes of 1 to 4 dimensions, views made by slices with steps (also negative), selections and
 * transposes, and every kind of out: a new array, a transposed out, the input itself, a view of
 * the same array that overlaps the input in another order, and an out the input broadcasts to.
 * Exact functions must match bit for bit (zero signs included), the others within 2 ulp. Each
 * case draws whether the SIMD loops are used.
 */
class ArrayMathPropertyTest : FunSpec({
    val cases = 400
    val seeds = Arb.long()
    val floats = listOf(F64.TYPE, F32.TYPE)
    val ints = DType.all().filter { !it.isFloatingPoint && it != Bool.TYPE }
    val exponents = listOf(0.5, 2.0, 1.0, 0.0, -1.0, 3.0, 2.5, -0.5, 1.0 / 3, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN)

    class Case(seed: Long) : AutoCloseable {
        val rnd = Random(seed)
        val fn = MathFn.entries[rnd.nextInt(MathFn.entries.size)]
        val dtype: DType<*> = if (fn.ints && rnd.nextInt(3) == 0) ints[rnd.nextInt(ints.size)] else floats[rnd.nextInt(2)]
        val shape = LongArray(1 + rnd.nextInt(4)) { 1L + rnd.nextInt(6) }
        val base: SharedNDArray<*> = SharedArrays.createAny(dtype, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS))
        val ref = RefArray(dtype, shape)
        var view: SharedNDArray<*> = base
        var rview: RefView = RefView.whole(ref)
        val trail = StringBuilder("$fn $dtype ${shape.toList()}")
        private val vectorBefore = Simd.use(rnd.nextBoolean())
        val extras = mutableListOf<SharedNDArray<*>>()
        var p = 0.0
        var q = 0.0
        var lo = 0L
        var hi = 0L

        init {
            for (i in 0 until ref.size) {
                if (dtype.isFloatingPoint) {
                    val v = randomFloat()
                    base.setDouble(i.toLong(), v)
                    ref.set(i, v)
                } else {
                    val v = randomInt()
                    base.setLong(i.toLong(), v)
                    ref.set(i, v)
                }
            }
            repeat(rnd.nextInt(4)) { randomViewOp() }
            when (fn) {
                MathFn.POW -> p = exponents[rnd.nextInt(exponents.size)]
                MathFn.CLIP -> if (dtype.isFloatingPoint) {
                    p = listOf(-0.0, 0.0, rnd.nextDouble(-5.0, 5.0), Double.NaN)[rnd.nextInt(if (rnd.nextInt(10) == 0) 4 else 3)]
                    q = listOf(-0.0, 0.0, rnd.nextDouble(-5.0, 5.0), p + 3.0)[rnd.nextInt(4)]
                } else {
                    val (min, max) = RefMath.range(dtype)
                    lo = if (rnd.nextInt(4) == 0 && min > Long.MIN_VALUE) min - 1 - rnd.nextInt(100) else rnd.nextLong(min, max)
                    hi = if (rnd.nextInt(4) == 0 && max < Long.MAX_VALUE) max + 1 + rnd.nextInt(100) else rnd.nextLong(maxOf(lo, min), max)
                }
                else -> {}
            }
            trail.append(" p=$p q=$q lo=$lo hi=$hi")
        }

        fun randomFloat(): Double = when (rnd.nextInt(9)) {
            0 -> listOf(0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.0, -1.0)[rnd.nextInt(7)]
            1 -> rnd.nextInt(-6, 7) + 0.5                                   // ties for rint
            2 -> rnd.nextDouble(-1e6, 1e6)
            3 -> rnd.nextDouble(-1e-3, 1e-3)                                // log1p, expm1 near 0
            4 -> rnd.nextDouble(-750.0, 750.0)                              // exp over- and underflow
            5 -> Math.scalb(rnd.nextDouble(0.5, 1.0), rnd.nextInt(-1070, 1024))
            else -> rnd.nextDouble(-10.0, 10.0)
        }

        fun randomInt(): Long {
            val (min, max) = RefMath.range(dtype)
            return when (rnd.nextInt(4)) {
                0 -> if (dtype == U64.TYPE) -1L - rnd.nextInt(3) else max - rnd.nextInt(3)
                1 -> min + rnd.nextInt(3)
                2 -> rnd.nextLong(min, max)
                else -> rnd.nextLong(maxOf(min, -50), 51)
            }
        }

        fun randomViewOp() {
            val nd = rview.shape.size
            when (rnd.nextInt(3)) {
                0 -> {
                    val axis = rnd.nextInt(nd)
                    val len = rview.shape[axis]
                    val start = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len)
                    val step = listOf(1L, 2L, -1L, -2L, 3L)[rnd.nextInt(5)]
                    if (RefView.pyRange(start, null, step, len).isEmpty()) return
                    view = view.slice(axis, start ?: Long.MIN_VALUE, Long.MAX_VALUE, step)
                    rview = rview.slice(axis, start, null, step)
                    trail.append(" slice(axis=$axis, $start::$step)")
                }
                1 -> {
                    val perm = (0 until nd).shuffled(rnd).toIntArray()
                    view = view.transpose(*perm)
                    rview = rview.transpose(perm)
                    trail.append(" transpose(${perm.toList()})")
                }
                else -> {
                    if (nd == 1) return
                    val axis = rnd.nextInt(nd)
                    val index = rnd.nextLong(rview.shape[axis])
                    view = view.select(axis, index)
                    rview = rview.select(axis, index)
                    trail.append(" select(axis=$axis, $index)")
                }
            }
        }

        /** The reference result for each element of the view, in row-major order. */
        fun expected(): List<Any> = rview.values().map { v ->
            if (dtype.isFloatingPoint) MathReference.float(fn, v as Double, dtype == F32.TYPE, p, q)
            else MathReference.int(fn, dtype, v as Long, maxOf(lo, RefMath.range(dtype).first), minOf(hi, RefMath.range(dtype).second))
        }

        fun call(a: SharedNDArray<*>, out: SharedNDArray<*>?): SharedNDArray<*> =
            if (fn == MathFn.CLIP && !dtype.isFloatingPoint) clipInts(a, out) else fn.call(a, out, p, q)

        @Suppress("UNCHECKED_CAST")
        private fun clipInts(a: SharedNDArray<*>, out: SharedNDArray<*>?): SharedNDArray<*> =
            if (out == null) ArrayMath.clip(a as SharedNDArray<I64>, lo, hi) else ArrayMath.clip(a as SharedNDArray<I64>, lo, hi, out as SharedNDArray<I64>)

        fun values(a: SharedNDArray<*>): List<Any> = if (dtype.isFloatingPoint) a.toDoubleArray().toList() else a.toLongArray().toList()

        /** Elements as bit patterns, so that NaN equals itself. */
        fun bits(a: SharedNDArray<*>): List<Long> = if (dtype.isFloatingPoint) a.toDoubleArray().map { it.toRawBits() } else a.toLongArray().toList()

        fun check(got: List<Any>, want: List<Any>) {
            got.size shouldBe want.size
            for (i in got.indices) {
                withClue("element $i: got ${got[i]}, want ${want[i]}") {
                    if (!dtype.isFloatingPoint) {
                        got[i] shouldBe want[i]
                    } else if (fn.exactFor(if (dtype == F32.TYPE) p.toFloat().toDouble() else p)) {
                        MathReference.sameBits(got[i] as Double, want[i] as Double) shouldBe true
                    } else {
                        (MathReference.ulps(got[i] as Double, want[i] as Double, dtype == F32.TYPE) <= 2) shouldBe true
                    }
                }
            }
        }

        fun fresh(shape: LongArray): SharedNDArray<*> =
            SharedArrays.createAny(dtype, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS)).also { extras += it }

        override fun close() {
            Simd.use(vectorBefore)
            extras.forEach { it.close() }
            base.close()
        }
    }

    fun same(a: Any, b: Any) = if (a is Double) MathReference.sameBits(a, b as Double) else a == b

    fun case(seed: Long, block: Case.() -> Unit) {
        Case(seed).use { c -> withClue("seed $seed: ${c.trail}") { c.block() } }
    }

    test("out of place: a new array of the input's shape with the reference's results, the input unchanged") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val before = bits(base)
                val want = expected()
                val r = call(view, null).also { extras += it }
                r.shape().toList() shouldBe rview.shape
                r.dtype() shouldBe dtype
                r.isContiguous() shouldBe true
                check(values(r), want)
                bits(base) shouldBe before
            }
        }
    }

    test("into a transposed out (a non-contiguous view of another array)") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val want = expected()
                val o = fresh(rview.shape.reversed().toLongArray())
                o.fill(7L)
                val out = o.transpose()
                call(view, out) shouldBe out
                check(values(out), want)
            }
        }
    }

    test("in place (out = a): the view's elements become the results, the rest of the array is unchanged") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val want = expected()
                val others = (0 until ref.size).filter { it !in rview.positions.toSet() }
                val before = values(base)
                call(view, view)
                check(values(view), want)
                val after = values(base)
                for (i in others) withClue("untouched element $i") { same(after[i], before[i]) shouldBe true }
            }
        }
    }

    test("into a view of the same array that overlaps the input in reverse order: as if the input were copied first") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val want = expected()
                val axis = rnd.nextInt(rview.shape.size)
                val out = view.slice(axis, Long.MIN_VALUE, Long.MAX_VALUE, -1)
                val rout = rview.slice(axis, null, null, -1)
                trail.append(" out=reversed(axis=$axis)")
                call(view, out)
                // the reference: old values of view, results written at out's positions
                val all = values(base)
                check(rout.positions.map { all[it] }, want)
            }
        }
    }

    test("into a larger out the input broadcasts to: every slab holds the results") {
        checkAll(PropTestConfig(iterations = cases / 2), seeds) { seed ->
            case(seed) {
                val want = expected()
                val k = 2 + rnd.nextInt(2)
                val out = fresh(longArrayOf(k.toLong()) + rview.shape.toLongArray())
                call(view, out)
                val got = values(out)
                for (s in 0 until k) withClue("slab $s") { check(got.subList(s * want.size, (s + 1) * want.size), want) }
            }
        }
    }

    test("pow of two arrays: broadcast exponents, views, in place and into the exponent") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            Case(seed).use { c ->
                withClue("seed $seed: ${c.trail}") {
                    if (!c.dtype.isFloatingPoint) return@withClue
                    val f32 = c.dtype == F32.TYPE
                    val bShape = when (c.rnd.nextInt(3)) {
                        0 -> c.rview.shape.toLongArray()
                        1 -> longArrayOf(c.rview.shape.last())
                        else -> longArrayOf(1)
                    }
                    val b = c.fresh(bShape)
                    val bv = DoubleArray(b.size().toInt()) {
                        if (c.rnd.nextBoolean()) exponents[c.rnd.nextInt(exponents.size)] else c.rnd.nextDouble(-3.0, 3.0)
                    }
                    b.copyFrom(bv)
                    val bValues = b.toDoubleArray()
                    val aValues = c.view.toDoubleArray()
                    val n = aValues.size
                    val want = List(n) { i ->
                        val r = MathReference.pow(aValues[i], bValues[i % bValues.size])
                        if (f32) r.toFloat().toDouble() else r
                    }
                    @Suppress("UNCHECKED_CAST")
                    val a = c.view as SharedNDArray<F64>
                    @Suppress("UNCHECKED_CAST")
                    val bb = b as SharedNDArray<F64>
                    val mode = c.rnd.nextInt(3)
                    val got = when (mode) {
                        0 -> ArrayMath.pow(a, bb).also { c.extras += it }.toDoubleArray()
                        1 -> ArrayMath.pow(a, bb, a).toDoubleArray()
                        else -> if (bShape.contentEquals(c.rview.shape.toLongArray())) ArrayMath.pow(a, bb, bb).toDoubleArray() else null
                    }
                    if (got != null) {
                        withClue("mode $mode, b shape ${bShape.toList()}") {
                            for (i in 0 until n) withClue("element $i: ${aValues[i]} ** ${bValues[i % bValues.size]}") {
                                (MathReference.ulps(got[i], want[i], f32) <= 2) shouldBe true
                            }
                        }
                    }
                }
            }
        }
    }
})
