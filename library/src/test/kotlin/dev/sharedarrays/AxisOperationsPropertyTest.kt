package dev.sharedarrays

import dev.sharedarrays.internal.array.AxisReduction
import dev.sharedarrays.testing.RefArray
import dev.sharedarrays.testing.RefLanes
import dev.sharedarrays.testing.RefMath
import dev.sharedarrays.testing.RefView
import dev.sharedarrays.internal.kernel.Simd
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll
import kotlin.math.abs
import kotlin.random.Random

/**
 * prod, variance, std, argmin/argmax, cumsum, the per-axis sum/mean/min/max, sort, concatenate
 * and stack against the plain reference of [RefLanes], over random dtypes (Bool too), shapes of 1 to 4
 * dimensions (some with an axis longer than a block, 2048), float data with NaNs and infinities, integer data
 * with ties, and views made by slices with steps, index selections and transposes. Each case draws
 * the walk (lane by lane or across the lanes, or the library's choice) and whether SIMD loops run.
 */
class AxisOperationsPropertyTest : FunSpec({
    val cases = 300
    val seeds = Arb.long()

    class Case(seed: Long, gentle: Boolean = false) : AutoCloseable {
        val rnd = Random(seed)
        val dtype: DType<*> = DType.all()[rnd.nextInt(DType.all().size)]
        val shape: LongArray = if (rnd.nextInt(8) == 0) {
            // one long axis: several blocks along it or across it
            val nd = 1 + rnd.nextInt(2)
            val long = rnd.nextInt(nd)
            LongArray(nd) { if (it == long) 2040L + rnd.nextInt(2200) else 1L + rnd.nextInt(3) }
        } else {
            LongArray(1 + rnd.nextInt(4)) { 1L + rnd.nextInt(6) }
        }
        val base: SharedNDArray<*> = SharedArrays.createAny(dtype, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS))
        val ref = RefArray(dtype, shape)
        var view: SharedNDArray<*> = base
        var rview: RefView = RefView.whole(ref)
        val walk: Boolean? = listOf(null, true, false)[rnd.nextInt(3)]
        val trail = StringBuilder("$dtype ${shape.toList()} walk=$walk")
        private val walkBefore = AxisReduction.forceLaneWalk(walk)
        private val vectorBefore = Simd.use(rnd.nextBoolean())
        private val nanChance = if (dtype.isFloatingPoint && rnd.nextInt(3) == 0) 0.1 else 0.0
        private val ties = rnd.nextBoolean()

        init {
            for (i in 0 until ref.size) {
                if (dtype.isFloatingPoint) {
                    val v = when {
                        rnd.nextDouble() < nanChance -> Double.NaN
                        nanChance > 0 && !gentle && rnd.nextInt(20) == 0 -> if (rnd.nextBoolean()) Double.POSITIVE_INFINITY else Double.NEGATIVE_INFINITY
                        gentle -> rnd.nextDouble(0.9, 1.1) * (if (rnd.nextInt(4) == 0) -1 else 1)
                        ties -> rnd.nextInt(-3, 4).toDouble()
                        rnd.nextInt(10) == 0 -> -0.0
                        else -> rnd.nextDouble(-1e6, 1e6)
                    }
                    base.setDouble(i.toLong(), v)
                    ref.set(i, v)
                } else {
                    val (lo, hi) = RefMath.range(dtype)
                    val v = when {
                        dtype.isBool -> rnd.nextLong(2)
                        ties -> rnd.nextLong(maxOf(lo, -3), 4)
                        dtype == U64.TYPE && rnd.nextBoolean() -> -1L - rnd.nextInt(1000) // past 2^63 as bits
                        else -> rnd.nextLong(lo, hi)
                    }
                    base.setLong(i.toLong(), v)
                    ref.set(i, v)
                }
            }
            repeat(rnd.nextInt(4)) { randomViewOp() }
        }

        private fun randomViewOp() {
            val nd = rview.shape.size
            when (rnd.nextInt(3)) {
                0 -> {
                    val axis = rnd.nextInt(nd)
                    val len = rview.shape[axis]
                    val start = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len)
                    val stop = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len + 1)
                    val step = listOf(1L, 2L, 3L, -1L, -2L)[rnd.nextInt(5)]
                    if (RefView.pyRange(start, stop, step, len).isEmpty()) return
                    view = view.slice(axis, start ?: Long.MIN_VALUE, stop ?: Long.MAX_VALUE, step)
                    rview = rview.slice(axis, start, stop, step)
                    trail.append(" slice(axis=$axis, $start:$stop:$step)")
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

        /** A random axis of the view, negative half of the time (numpy counts it from the end). */
        fun randomAxis(): Pair<Int, Int> {
            val nd = rview.shape.size
            val axis = rnd.nextInt(nd)
            return axis to if (rnd.nextBoolean()) axis - nd else axis
        }

        /** The view's values along each lane of [axis]. */
        fun lanes(axis: Int): List<List<Any>> {
            val values = rview.values()
            return RefLanes.lanes(rview.shape, axis).map { lane -> lane.map { values[it] } }
        }

        fun outShape(axis: Int): List<Long> = if (rview.shape.size == 1) listOf(1L) else rview.shape.filterIndexed { k, _ -> k != axis }

        override fun close() {
            AxisReduction.forceLaneWalk(walkBefore)
            Simd.use(vectorBefore)
            base.close()
        }
    }

    fun case(seed: Long, gentle: Boolean = false, block: Case.() -> Unit) {
        Case(seed, gentle).use { c -> withClue("seed $seed: ${c.trail}") { c.block() } }
    }

    fun SharedNDArray<*>.values(): List<Any> = if (dtype().isFloatingPoint) toDoubleArray().toList() else toLongArray().toList()

    test("prod, whole and along an axis") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed, gentle = true) {
                val values = rview.values()
                near(view.prod(), RefLanes.prod(dtype, values), 1e-11 * abs(RefLanes.prod(dtype, values)))
                if (!dtype.isFloatingPoint) view.prodAsLong() shouldBe RefLanes.prodBits(values)
                else shouldThrow<DTypeMismatchException> { view.prodAsLong() }
                val (axis, given) = randomAxis()
                val out = view.prod(given)
                out.shape().toList() shouldBe outShape(axis)
                out.toDoubleArray().toList().zip(lanes(axis)).forEach { (g, lane) ->
                    val e = RefLanes.prod(dtype, lane)
                    near(g, e, 1e-11 * abs(e))
                }
            }
        }
    }

    test("variance and std (ddof 0), whole and along an axis") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val values = rview.values()
                near(view.variance(), RefLanes.variance(dtype, values), varianceTolerance(dtype, values))
                near(view.std(), Math.sqrt(RefLanes.variance(dtype, values)), Math.sqrt(varianceTolerance(dtype, values)))
                val (axis, given) = randomAxis()
                val std = rnd.nextBoolean()
                val out = if (std) view.std(given) else view.variance(given)
                out.shape().toList() shouldBe outShape(axis)
                out.toDoubleArray().toList().zip(lanes(axis)).forEach { (g, lane) ->
                    val e = RefLanes.variance(dtype, lane)
                    if (std) near(g, Math.sqrt(e), Math.sqrt(varianceTolerance(dtype, lane))) else near(g, e, varianceTolerance(dtype, lane))
                }
            }
        }
    }

    test("argmin and argmax, flat and along an axis: the first best element, the first NaN") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val values = rview.values()
                view.argmin() shouldBe RefLanes.arg(dtype, values, max = false)
                view.argmax() shouldBe RefLanes.arg(dtype, values, max = true)
                val (axis, given) = randomAxis()
                val max = rnd.nextBoolean()
                val out = if (max) view.argmax(given) else view.argmin(given)
                out.dtype() shouldBe I64.TYPE
                out.shape().toList() shouldBe outShape(axis)
                out.toLongArray().toList() shouldBe lanes(axis).map { RefLanes.arg(dtype, it, max) }
            }
        }
    }

    test("sum, mean, min and max along an axis, either walk") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val (axis, given) = randomAxis()
                val lanes = lanes(axis)
                when (rnd.nextInt(4)) {
                    0, 1 -> {
                        val mean = rnd.nextBoolean()
                        val out = if (mean) view.mean(given) else view.sum(given)
                        out.toDoubleArray().toList().zip(lanes).forEach { (g, lane) ->
                            val e = RefMath.sum(dtype, lane) / (if (mean) lane.size else 1)
                            near(g, e, 1e-12 * lane.sumOf { abs(RefLanes.asDouble(dtype, it)) } / (if (mean) lane.size else 1))
                        }
                    }
                    else -> {
                        val max = rnd.nextBoolean()
                        val out = if (max) view.max(given) else view.min(given)
                        out.dtype() shouldBe dtype
                        val expected = lanes.map { lane -> lane[RefLanes.arg(dtype, lane, max).toInt()] }
                        sameValues(out.values(), expected)
                    }
                }
            }
        }
    }

    test("cumsum, flat and along an axis: numpy's dtypes and bit-identical sums") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val flat = view.cumsum()
                flat.dtype().name() shouldBe RefLanes.cumsumType(dtype)
                flat.shape().toList() shouldBe listOf(rview.size.toLong())
                sameValues(flat.values(), RefLanes.cumsum(dtype, rview.values()))
                val (axis, given) = randomAxis()
                val out = view.cumsum(given)
                out.dtype().name() shouldBe RefLanes.cumsumType(dtype)
                out.shape().toList() shouldBe rview.shape
                val got = out.values()
                RefLanes.lanes(rview.shape, axis).zip(lanes(axis)).forEach { (positions, lane) ->
                    sameValues(positions.map { got[it] }, RefLanes.cumsum(dtype, lane))
                }
            }
        }
    }

    test("sort in place and sorted copies along an axis") {
        checkAll(PropTestConfig(iterations = cases), seeds) { seed ->
            case(seed) {
                val (axis, given) = randomAxis()
                val expected = lanes(axis).map { RefLanes.sort(dtype, it) }
                val before = rview.values()
                val lastAxis = rnd.nextBoolean()
                val copyAxis = if (lastAxis) rview.shape.size - 1 else axis
                val copy = if (lastAxis) view.sorted() else view.sorted(given)
                sameValues(view.values(), before) // sorted() leaves the array alone
                val copyValues = copy.values()
                RefLanes.lanes(rview.shape, copyAxis).zip(lanes(copyAxis).map { RefLanes.sort(dtype, it) }).forEach { (p, e) ->
                    sameValues(p.map { copyValues[it] }, e)
                }
                view.sort(given)
                val sortedValues = view.values()
                RefLanes.lanes(rview.shape, axis).zip(expected).forEach { (p, e) -> sameValues(p.map { sortedValues[it] }, e) }
            }
        }
    }

    // The properties above compare with a reference; this checks that those comparisons are sharp
    // enough to catch the bugs such kernels get: each plausible bug, written as a wrong reference,
    // must disagree with the library (whose results match the right reference) on some case.
    test("the comparisons catch plausible kernel bugs") {
        fun fails(block: () -> Unit): Boolean = try {
            block()
            false
        } catch (e: AssertionError) {
            true
        }
        val caught = mutableMapOf<String, Boolean>()
        fun bug(name: String, check: () -> Unit) {
            if (caught[name] != true) caught[name] = fails(check)
        }
        for (seed in 1L..200L) {
            case(seed) {
                val values = rview.values()
                val (axis, given) = randomAxis()
                val lanes = lanes(axis)
                // argmax taking the last of equal maxima (>= for >), and one off by one
                bug("last tie") {
                    val best = values[RefLanes.arg(dtype, values, true).toInt()]
                    view.argmax() shouldBe values.indices.last { sameElement(values[it], best) }.toLong()
                }
                bug("off by one") { view.argmax(given).toLongArray().toList() shouldBe lanes.map { RefLanes.arg(dtype, it, true) + if (it.size > 1) 1 else 0 } }
                // var with numpy's ddof = 1 divisor
                bug("ddof 1") {
                    view.variance(given).toDoubleArray().toList().zip(lanes).forEach { (g, lane) ->
                        if (lane.size > 1) near(g, RefLanes.variance(dtype, lane, ddof = 1), varianceTolerance(dtype, lane))
                    }
                }
                // a flat cumsum that restarts at every row of a strided view
                bug("cumsum restart") {
                    val rows = rview.shape.last().toInt()
                    val restarted = values.chunked(rows).flatMap { RefLanes.cumsum(dtype, it) }
                    sameValues(view.cumsum().values(), restarted)
                }
                // NaNs sorted first, and U64 sorted as signed
                bug("sort order") {
                    val wrong = lanes.map { lane ->
                        if (dtype.isFloatingPoint) lane.map { it as Double }.sortedBy { if (it.isNaN()) Double.NEGATIVE_INFINITY else it }
                        else lane.map { it as Long }.sorted()
                    }
                    val sorted = view.sorted(given).values()
                    RefLanes.lanes(rview.shape, axis).zip(wrong).forEach { (p, e) -> sameValues(p.map { sorted[it] }, e) }
                }
            }
        }
        caught shouldBe mapOf("last tie" to true, "off by one" to true, "ddof 1" to true, "cumsum restart" to true, "sort order" to true)
    }
})

private fun sameElement(a: Any, b: Any): Boolean = if (a is Double && b is Double) a == b || a.isNaN() && b.isNaN() else a == b

/** Within tol of the expected value; NaN and infinities exactly. */
private fun near(got: Double, expected: Double, tol: Double) {
    if (expected.isNaN() || expected.isInfinite() || got.isNaN() || got.isInfinite()) {
        if (!(got.isNaN() && expected.isNaN())) got shouldBe expected
    } else if (abs(got - expected) > tol) {
        got shouldBe expected
    }
}

/** A variance's rounding: relative to itself, plus what the mean's last bits can move (squared). */
private fun varianceTolerance(t: DType<*>, values: List<Any>): Double {
    val meanAbs = values.sumOf { abs(RefLanes.asDouble(t, it)) } / values.size
    return 1e-11 * RefLanes.variance(t, values).let { if (it.isNaN()) 0.0 else it } + 1e-15 * meanAbs * meanAbs
}

/** Equal element by element; NaN equals NaN, and -0.0 equals 0.0 as in numpy's comparisons. */
private fun sameValues(got: List<Any>, expected: List<Any>) {
    got.size shouldBe expected.size
    for (i in got.indices) {
        val g = got[i]
        val e = expected[i]
        if (g is Double && e is Double) {
            if (!(g.isNaN() && e.isNaN()) && g != e) withClue("element $i") { g shouldBe e }
        } else {
            withClue("element $i") { g shouldBe e }
        }
    }
}
