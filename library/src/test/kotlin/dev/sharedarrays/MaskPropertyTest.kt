package dev.sharedarrays

import dev.sharedarrays.testing.RefArray
import dev.sharedarrays.testing.RefMath
import dev.sharedarrays.testing.RefView
import dev.sharedarrays.testing.compare
import dev.sharedarrays.internal.kernel.Simd
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll
import java.math.BigInteger
import kotlin.random.Random

/**
 * Comparisons, logic, where and boolean masks against a plain heap reference, over all 11 dtypes,
 * shapes of 1 to 3 dimensions with rows long enough for the SIMD blocks, views made by slices
 * with steps, index selections and transposes, broadcast operands, NaNs, infinities and scalars
 * outside the element type's range. Each case draws whether the SIMD loops are used.
 */
class MaskPropertyTest : FunSpec({
    val cases = 400
    val cmps = listOf("gt", "lt", "ge", "le", "eq", "ne")

    /** One random case: two arrays of one dtype and shape, and the same random view of each. */
    class Case(val seed: Long) : AutoCloseable {
        val rnd = Random(seed)
        val dtype: DType<*> = DType.all()[rnd.nextInt(DType.all().size)]
        val shape: LongArray = run {
            val nd = 1 + rnd.nextInt(3)
            if (rnd.nextBoolean()) LongArray(nd) { 1L + rnd.nextInt(6) }
            else LongArray(nd) { if (it == nd - 1) 1L + rnd.nextInt(300) else 1L + rnd.nextInt(4) }
        }
        private val vectorBefore = Simd.use(rnd.nextBoolean())
        val opened = mutableListOf<SharedNDArray<*>>()
        val refA = RefArray(dtype, shape)
        val refB = RefArray(dtype, shape)
        val a = array(dtype, shape, refA)
        val b = array(dtype, shape, refB)
        var va: SharedNDArray<*> = a
        var vb: SharedNDArray<*> = b
        var ra: RefView = RefView.whole(refA)
        var rb: RefView = RefView.whole(refB)
        val trail = StringBuilder("$dtype ${shape.toList()}")

        init {
            repeat(rnd.nextInt(3)) { randomView() }
        }

        fun array(t: DType<*>, shape: LongArray, ref: RefArray): SharedNDArray<*> {
            val x = SharedArrays.createAny(t, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS))
            opened += x
            for (i in 0 until ref.size) {
                if (t.isFloatingPoint) {
                    val v = randomFloat()
                    x.setDouble(i.toLong(), v)
                    ref.set(i, v)
                } else {
                    val v = randomInt(t)
                    x.setLong(i.toLong(), v)
                    ref.set(i, v)
                }
            }
            return x
        }

        fun randomFloat(): Double = when (rnd.nextInt(8)) {
            0 -> Double.NaN
            1 -> listOf(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, 0.5)[rnd.nextInt(5)]
            2, 3 -> rnd.nextInt(-3, 4).toDouble()
            else -> rnd.nextDouble(-10.0, 10.0)
        }

        fun randomInt(t: DType<*>): Long {
            if (t.isBool) return rnd.nextLong(2)
            val (lo, hi) = RefMath.range(t)
            return when (rnd.nextInt(5)) {
                0 -> if (t == U64.TYPE) -1L - rnd.nextInt(3) else hi - rnd.nextInt(3)
                1 -> lo + rnd.nextInt(3)
                2 -> rnd.nextLong(lo, hi)
                else -> rnd.nextLong(maxOf(lo, -3), 4)
            }
        }

        /** A scalar an array of this dtype can store: U64 values past 2^63 are no long scalars. */
        fun storable(): Any = if (dtype.isFloatingPoint) randomFloat() else randomInt(dtype).let { if (dtype == U64.TYPE) it and Long.MAX_VALUE else it }

        /** A double scalar: ordinary, fractional, whole, huge (past 2^53 and 2^63), infinite or NaN. */
        fun doubleScalar(): Double = when (rnd.nextInt(9)) {
            0 -> Double.NaN
            1 -> listOf(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0)[rnd.nextInt(3)]
            2 -> listOf(1e19, -1e19, 9.223372036854775807E18, 1.8446744073709552E19, 9007199254740992.0, 3e9, -3e9)[rnd.nextInt(7)]
            3 -> if (dtype.isFloatingPoint) randomFloat() else randomInt(dtype).toDouble()
            4 -> 0.5 + rnd.nextInt(-3, 3)
            else -> rnd.nextInt(-4, 5).toDouble()
        }

        /** A long scalar: small, an element's value, or outside the type's range. */
        fun longScalar(): Long = when (rnd.nextInt(5)) {
            0 -> listOf(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 256L, 70000L, 1L shl 40, -(1L shl 40))[rnd.nextInt(7)]
            1 -> if (dtype.isFloatingPoint) rnd.nextInt(-3, 4).toLong() else randomInt(dtype)
            else -> rnd.nextLong(-4, 5)
        }

        fun randomView() {
            val nd = ra.shape.size
            when (rnd.nextInt(3)) {
                0 -> {
                    val axis = rnd.nextInt(nd)
                    val len = ra.shape[axis]
                    val start = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len)
                    val stop = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len + 1)
                    val step = listOf(1L, 1L, 2L, 3L, -1L, -2L)[rnd.nextInt(6)]
                    if (RefView.pyRange(start, stop, step, len).isEmpty()) return
                    va = va.slice(axis, start ?: Long.MIN_VALUE, stop ?: Long.MAX_VALUE, step)
                    vb = vb.slice(axis, start ?: Long.MIN_VALUE, stop ?: Long.MAX_VALUE, step)
                    ra = ra.slice(axis, start, stop, step)
                    rb = rb.slice(axis, start, stop, step)
                    trail.append(" slice($axis, $start:$stop:$step)")
                }
                1 -> {
                    val perm = (0 until nd).shuffled(rnd).toIntArray()
                    va = va.transpose(*perm)
                    vb = vb.transpose(*perm)
                    ra = ra.transpose(perm)
                    rb = rb.transpose(perm)
                    trail.append(" transpose(${perm.toList()})")
                }
                else -> {
                    if (nd == 1) return
                    val axis = rnd.nextInt(nd)
                    val index = rnd.nextLong(ra.shape[axis])
                    va = va.select(axis, index)
                    vb = vb.select(axis, index)
                    ra = ra.select(axis, index)
                    rb = rb.select(axis, index)
                    trail.append(" select($axis, $index)")
                }
            }
        }

        /** A random Bool array of this shape (maybe a transposed view of one) and its values in row-major order. */
        fun mask(shape: List<Long>): Pair<SharedNDArray<Bool>, List<Boolean>> {
            val transposed = shape.size > 1 && rnd.nextBoolean()
            val baseShape = if (transposed) shape.reversed() else shape
            val ref = RefArray(Bool.TYPE, baseShape.toLongArray())
            val density = listOf(0.0, 0.1, 0.5, 0.9, 1.0)[rnd.nextInt(5)]
            val m = SharedArrays.create(Bool.TYPE, baseShape.toLongArray(), CreateOptions.defaults().backend(Backend.ANONYMOUS))
            opened += m
            for (i in 0 until ref.size) {
                val v = if (rnd.nextDouble() < density) 1L else 0L
                m.setLong(i.toLong(), v)
                ref.set(i, v)
            }
            return if (transposed) {
                val perm = IntArray(shape.size) { shape.size - 1 - it }
                m.transpose(*perm) to RefView.whole(ref).transpose(perm).values().map { it == 1L }
            } else {
                m to RefView.whole(ref).values().map { it == 1L }
            }
        }

        override fun close() {
            Simd.use(vectorBefore)
            opened.forEach { it.close() }
        }
    }

    fun exact(t: DType<*>, v: Long): BigInteger =
        if (t == U64.TYPE) BigInteger(java.lang.Long.toUnsignedString(v)) else BigInteger.valueOf(v)

    /** An element as numpy converts it to float64 to compare it with a float scalar. */
    fun asDouble(t: DType<*>, v: Any): Double = when {
        t.isFloatingPoint -> v as Double
        else -> exact(t, v as Long).toDouble()
    }

    fun holds(c: String, order: Int): Boolean = when (c) {
        "gt" -> order > 0
        "lt" -> order < 0
        "ge" -> order >= 0
        "le" -> order <= 0
        "eq" -> order == 0
        else -> order != 0
    }

    fun holds(c: String, x: Double, y: Double): Boolean =
        if (x.isNaN() || y.isNaN()) c == "ne" else holds(c, x.compareTo(y).let { if (x == y) 0 else it })

    /** The reference of `element (c) other element` of two arrays of type t. */
    fun holdsElements(t: DType<*>, c: String, x: Any, y: Any): Boolean =
        if (t.isFloatingPoint) holds(c, x as Double, y as Double) else holds(c, exact(t, x as Long).compareTo(exact(t, y as Long)))

    @Suppress("UNCHECKED_CAST")
    fun <T : DType<T>> SharedNDArray<*>.typed(): SharedNDArray<T> = this as SharedNDArray<T>

    fun bools(m: SharedNDArray<Bool>): List<Boolean> = m.toLongArray().map { it == 1L }

    /** The elements of an array of case's dtype as the reference keeps them. */
    fun values(t: DType<*>, x: SharedNDArray<*>): List<Any> =
        if (t.isFloatingPoint) x.toDoubleArray().toList() else x.toLongArray().toList()

    fun sameValues(t: DType<*>, got: List<Any>, want: List<Any>) {
        got.size shouldBe want.size
        if (t.isFloatingPoint) {
            // where and masks move bits: -0.0 stays -0.0, NaN stays NaN
            got.map { (it as Double).let { d -> if (d.isNaN()) "NaN" else d.toRawBits().toString() } } shouldBe
                want.map { (it as Double).let { d -> if (d.isNaN()) "NaN" else d.toRawBits().toString() } }
        } else {
            got shouldBe want
        }
    }

    fun case(seed: Long, block: Case.() -> Unit) {
        Case(seed).use { c -> withClue("seed $seed: ${c.trail}") { c.block() } }
    }

    test("comparisons with a float scalar compare as numpy's float64 (F32: float32)") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val c = cmps[rnd.nextInt(6)]
                val s = doubleScalar()
                withClue("$c $s") {
                    val r = compare(c, va, s)
                    r.dtype() shouldBe Bool.TYPE
                    r.shape().toList() shouldBe ra.shape
                    val scalar = if (dtype == F32.TYPE) s.toFloat().toDouble() else s
                    bools(r) shouldBe ra.values().map { holds(c, asDouble(dtype, it), scalar) }
                }
            }
        }
    }

    test("comparisons with an integer scalar are exact, also outside the element type's range") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val c = cmps[rnd.nextInt(6)]
                val s = longScalar()
                withClue("$c $s") {
                    val r = compare(c, va, s)
                    r.shape().toList() shouldBe ra.shape
                    bools(r) shouldBe ra.values().map {
                        if (dtype.isFloatingPoint) {
                            holds(c, it as Double, if (dtype == F32.TYPE) s.toDouble().toFloat().toDouble() else s.toDouble())
                        } else {
                            holds(c, exact(dtype, it as Long).compareTo(BigInteger.valueOf(s)))
                        }
                    }
                }
            }
        }
    }

    test("comparisons of two arrays, of one shape or broadcast") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val c = cmps[rnd.nextInt(6)]
                val nd = ra.shape.size
                if (nd > 1 && rnd.nextBoolean()) {
                    // b's first row against every row of a: [n, m] with [m]
                    val row = vb.select(0, 0)
                    val rrow = rb.select(0, 0)
                    val r = compare(c, va.typed<F64>(), row.typed<F64>())
                    r.shape().toList() shouldBe ra.shape
                    val inner = rrow.size
                    bools(r) shouldBe ra.values().mapIndexed { i, x -> holdsElements(dtype, c, x, rrow.values()[i % inner]) }
                    // and the other way round: [m] with [n, m]
                    bools(compare(c, row.typed<F64>(), va.typed<F64>())) shouldBe
                        ra.values().mapIndexed { i, x -> holdsElements(dtype, c, rrow.values()[i % inner], x) }
                } else {
                    val r = compare(c, va.typed<F64>(), vb.typed<F64>())
                    r.shape().toList() shouldBe ra.shape
                    bools(r) shouldBe ra.values().zip(rb.values()).map { (x, y) -> holdsElements(dtype, c, x, y) }
                }
            }
        }
    }

    test("and, or, xor and not of masks") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val (m1, r1) = mask(ra.shape)
                val (m2, r2) = if (dtype.isBool && rnd.nextBoolean()) {
                    vb.typed<Bool>() to rb.values().map { it == 1L }
                } else {
                    mask(ra.shape)
                }
                bools(m1.and(m2)) shouldBe r1.zip(r2).map { (x, y) -> x && y }
                bools(m1.or(m2)) shouldBe r1.zip(r2).map { (x, y) -> x || y }
                bools(m1.xor(m2)) shouldBe r1.zip(r2).map { (x, y) -> x != y }
                bools(m2.not()) shouldBe r2.map { !it }
                if (ra.shape.size > 1) {
                    val row = m2.select(0, 0)
                    val inner = row.size().toInt()
                    bools(m1.and(row)) shouldBe r1.mapIndexed { i, x -> x && r2[i % inner] }
                }
                if (!dtype.isBool) {
                    shouldThrow<DTypeMismatchException> { va.not() }.message shouldBe
                        "not() is for Bool arrays, this one holds $dtype; compare it first, as in a.ne(0)"
                }
            }
        }
    }

    test("where with two arrays, with a scalar, and broadcast") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val (m, rm) = mask(ra.shape)
                val want = rm.indices.map { if (rm[it]) ra.values()[it] else rb.values()[it] }
                sameValues(dtype, values(dtype, Masks.where(m, va.typed<F64>(), vb.typed<F64>())), want)
                // a scalar that fits the type, on either side
                val s: Any = storable()
                val x = if (dtype.isFloatingPoint) Masks.where(m, va.typed<F64>(), s as Double) else Masks.where(m, va.typed<F64>(), s as Long)
                val stored = if (dtype == F32.TYPE) (s as Double).toFloat().toDouble() else s
                sameValues(dtype, values(dtype, x), rm.indices.map { if (rm[it]) ra.values()[it] else stored })
                val y = if (dtype.isFloatingPoint) Masks.where(m, s as Double, vb.typed<F64>()) else Masks.where(m, s as Long, vb.typed<F64>())
                sameValues(dtype, values(dtype, y), rm.indices.map { if (rm[it]) stored else rb.values()[it] })
                if (ra.shape.size > 1) {
                    // a mask row for every row, and an array row for every row
                    val (row, rrow) = mask(ra.shape.drop(1))
                    val inner = rrow.size
                    sameValues(dtype, values(dtype, Masks.where(row, va.typed<F64>(), vb.typed<F64>())),
                        ra.values().indices.map { if (rrow[it % inner]) ra.values()[it] else rb.values()[it] })
                    val brow = vb.select(0, 0)
                    val rbrow = rb.select(0, 0).values()
                    sameValues(dtype, values(dtype, Masks.where(m, va.typed<F64>(), brow.typed<F64>())),
                        rm.indices.map { if (rm[it]) ra.values()[it] else rbrow[it % inner] })
                }
            }
        }
    }

    test("a[mask] copies the selected elements in row-major order; a[mask] = v writes only them") {
        checkAll(PropTestConfig(iterations = cases), Arb.long()) { seed ->
            case(seed) {
                val (m, rm) = mask(ra.shape)
                val selected = ra.values().filterIndexed { i, _ -> rm[i] }
                if (selected.isEmpty()) {
                    shouldThrow<IllegalArgumentException> { va.masked(m) }
                } else {
                    val got = va.masked(m)
                    got.shape().toList() shouldBe listOf(selected.size.toLong())
                    got.dtype() shouldBe dtype
                    sameValues(dtype, values(dtype, got), selected)
                }
                val positions = ra.positions.filterIndexed { i, _ -> rm[i] }
                when (rnd.nextInt(3)) {
                    0 -> {
                        val s = storable()
                        if (dtype.isFloatingPoint) va.setMasked(m, s as Double) else va.setMasked(m, s as Long)
                        positions.forEach { refA.set(it, s) }
                    }
                    1 -> {
                        // values from b, in row-major order of the selection
                        val vals = rb.values().take(positions.size)
                        if (positions.isNotEmpty()) {
                            val src = SharedArrays.createAny(dtype, longArrayOf(positions.size.toLong()),
                                CreateOptions.defaults().backend(Backend.ANONYMOUS))
                            opened += src
                            vals.forEachIndexed { i, v ->
                                if (dtype.isFloatingPoint) src.setDouble(i.toLong(), v as Double) else src.setLong(i.toLong(), v as Long)
                            }
                            // a reversed view of them, to read strided values
                            val rev = src.slice(0, Long.MIN_VALUE, Long.MAX_VALUE, -1)
                            va.typed<F64>().setMasked(m, rev.typed<F64>())
                            positions.forEachIndexed { i, p -> refA.set(p, vals[vals.size - 1 - i]) }
                        }
                    }
                    else -> {
                        // the mask of the array itself, comparing it with one of its elements
                        // (a U64 element past 2^63 is no long scalar: its bits would be a negative number)
                        val pivot = ra.values()[rnd.nextInt(ra.size)].let { if (dtype == U64.TYPE) (it as Long) and Long.MAX_VALUE else it }
                        val self = if (dtype.isFloatingPoint) va.lt(pivot as Double) else va.lt(pivot as Long)
                        val s = if (dtype.isFloatingPoint) 0.0 else 0L
                        if (dtype.isFloatingPoint) va.setMasked(self, 0.0) else va.setMasked(self, 0L)
                        ra.positions.forEachIndexed { i, p ->
                            if (holdsElements(dtype, "lt", ra.values()[i], pivot)) refA.set(p, s)
                        }
                    }
                }
                // the whole base array: nothing outside the view or the mask changed
                sameValues(dtype, values(dtype, a), RefView.whole(refA).values())
            }
        }
    }

    test("a wrong mask is a clear error") {
        val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), anon).use { a ->
            SharedArrays.create(Bool.TYPE, longArrayOf(3, 2), anon).use { m ->
                shouldThrow<ShapeMismatchException> { a.masked(m) }.message shouldBe
                    "a[mask]: the mask's shape [3, 2] differs from the array's [2, 3]"
                shouldThrow<ShapeMismatchException> { a.setMasked(m.transpose(), a.slice(0, 0, 1, 1)) }
                shouldThrow<ShapeMismatchException> { Masks.where(m, a, a) }.message shouldBe
                    "shapes [3, 2] and [2, 3] do not broadcast: axis 1 of the result would be 2 and 3 (numpy's rule: trailing " +
                    "dimensions equal or 1)"
                m.fill(1L)
                SharedArrays.create(F64.TYPE, longArrayOf(4), anon).use { v ->
                    shouldThrow<ShapeMismatchException> { a.setMasked(m.transpose(), v) }.message shouldBe
                        "a[mask] = values: the mask selects 6 elements, values has 4 (shape [4])"
                }
            }
            SharedArrays.create(I32.TYPE, longArrayOf(2, 3), anon).use { b ->
                @Suppress("UNCHECKED_CAST")
                shouldThrow<DTypeMismatchException> { a.gt(b as SharedNDArray<F64>) }.message shouldBe
                    "cannot compare a F64 array with a I32 array (<f8 vs <i4): convert one first"
                @Suppress("UNCHECKED_CAST")
                shouldThrow<DTypeMismatchException> { a.masked(b as SharedNDArray<Bool>) }.message shouldBe
                    "a[mask]: the mask holds I32, not BOOL; compare to get one, as in a.gt(0.5)"
                shouldThrow<DTypeMismatchException> { Masks.where(b.gt(0L), b, 0.5) }.message shouldBe
                    "where: the scalar 0.5 is not a whole number, and the array holds I32 (numpy's result would be float64); " +
                    "convert the array first, or pass a whole number"
            }
            SharedArrays.create(U8.TYPE, longArrayOf(2), anon).use { u ->
                shouldThrow<IllegalArgumentException> { Masks.where(u.gt(0L), u, 300L) }.message shouldBe
                    "scalar 300 is out of range for U8 (0 to 255); numpy 2 refuses it too"
                shouldThrow<IllegalArgumentException> { u.setMasked(u.eq(0L), -1L) }
            }
        }
    }
})
