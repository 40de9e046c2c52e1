package dev.sharedarrays.internal.array

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.U8
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.lang.foreign.ValueLayout.JAVA_DOUBLE
import java.util.SplittableRandom

/**
 * parallelSort() and parallelSorted(): chunks sorted at once and merged give the order of the
 * single-thread sort (NaNs last, -0.0 first, unsigned by value) for every chunk count, lane
 * length and run shape; chunk counts are forced so that small lanes cross chunk boundaries.
 */
class ParallelLaneSortTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)
    val shm = CreateOptions.defaults().backend(Backend.SHM)

    fun <R> withBuckets(chunks: Int, body: () -> R): R {
        val before = ParallelLaneSort.forceBuckets(chunks)
        try {
            return body()
        } finally {
            ParallelLaneSort.forceBuckets(before)
        }
    }

    for (dtype in listOf<DType<*>>(F64.TYPE, F32.TYPE, I64.TYPE, I32.TYPE, U64.TYPE, U32.TYPE)) {
        test("${dtype.name()}: parallelSorted() and parallelSort() over 2-7 chunks match a reference sort of the bits") {
            val rnd = SplittableRandom(300L + dtype.code())
            for (chunks in listOf(2, 3, 4, 5, 7)) {
                for (n in listOf(1, 2, 3, 8, 17, 1000, 100_003)) {
                    for (specials in listOf(false, true)) {
                        withBuckets(chunks) {
                            for (options in listOf(anon, shm)) {
                                SharedArrays.createAny(dtype, longArrayOf(n.toLong()), options).use { a ->
                                    val bits = LongArray(n) { randomBits(dtype, rnd, specials) }
                                    write(a, bits)
                                    val expected = reference(dtype, bits)
                                    a.parallelSorted().use { c -> same(dtype, read(c), expected) }
                                    read(a).toList() shouldBe bits.toList()
                                    a.parallelSort()
                                    same(dtype, read(a), expected)
                                }
                            }
                        }
                    }
                }
            }
        }

        test("${dtype.name()}: sorted, reversed and constant lanes, and runs that interleave at the chunk boundaries") {
            val n = 10_007
            val shapes = listOf<(Int) -> Long>(
                { it.toLong() }, // sorted: each chunk's run lies wholly below the next
                { (n - it).toLong() }, // reversed: wholly above
                { 5L }, // all equal: every split is a tie
                { (it % 3).toLong() }, // few values, long ties across the boundaries
                { if (it % 2 == 0) it.toLong() else (n - it).toLong() },
            )
            for (chunks in listOf(2, 3, 4)) {
                withBuckets(chunks) {
                    for (shape in shapes) {
                        SharedArrays.createAny(dtype, longArrayOf(n.toLong()), anon).use { a ->
                            val bits = LongArray(n) { encode(dtype, shape(it)) }
                            write(a, bits)
                            a.parallelSorted().use { c -> same(dtype, read(c), reference(dtype, bits)) }
                        }
                    }
                }
            }
        }
    }

    test("the rows of a matrix sort alike along either axis, and a view whose lanes start mid-row sorts in place") {
        val rnd = SplittableRandom(11)
        val rows = 3
        val cols = 20_011
        withBuckets(3) {
            SharedArrays.createAny(F64.TYPE, longArrayOf(rows.toLong(), cols.toLong()), anon).use { a ->
                val bits = LongArray(rows * cols) { randomBits(F64.TYPE, rnd, true) }
                write(a, bits)
                for (axis in listOf(0, 1, -1)) {
                    a.parallelSorted(axis).use { p -> a.sorted(axis).use { s -> same(F64.TYPE, read(p), read(s).toList()) } }
                }
                a.slice(1, 5, cols.toLong(), 1).parallelSort()
                val got = read(a)
                for (r in 0 until rows) {
                    got.copyOfRange(r * cols, r * cols + 5).toList() shouldBe bits.copyOfRange(r * cols, r * cols + 5).toList()
                    same(F64.TYPE, got.copyOfRange(r * cols + 5, (r + 1) * cols), reference(F64.TYPE, bits.copyOfRange(r * cols + 5, (r + 1) * cols)))
                }
            }
        }
    }

    test("types the native sort does not take (I16, U8) sort as sort() does") {
        val rnd = SplittableRandom(12)
        withBuckets(4) {
            for (dtype in listOf<DType<*>>(I16.TYPE, U8.TYPE)) {
                SharedArrays.createAny(dtype, longArrayOf(50_001), anon).use { a ->
                    for (i in 0 until 50_001L) {
                        a.setLong(i, rnd.nextLong(-300, 300))
                    }
                    a.sorted().use { s ->
                        a.parallelSorted().use { p -> (0 until 50_001L).map { p.getLong(it) } shouldBe (0 until 50_001L).map { s.getLong(it) } }
                        a.parallelSort()
                        (0 until 50_001L).map { a.getLong(it) } shouldBe (0 until 50_001L).map { s.getLong(it) }
                    }
                }
            }
        }
    }

    test("without a forced chunk count, a lane of 2^21 + 3 doubles sorts on the cores there are as Arrays.sort does") {
        val n = (1 shl 21) + 3
        val rnd = SplittableRandom(13)
        SharedArrays.create(F64.TYPE, longArrayOf(n.toLong()), anon).use { a ->
            val bits = LongArray(n) { randomBits(F64.TYPE, rnd, true) }
            write(a, bits)
            val expected = DoubleArray(n) { java.lang.Double.longBitsToDouble(bits[it]) }
            java.util.Arrays.sort(expected)
            val expectedBits = expected.map { java.lang.Double.doubleToRawLongBits(it) }
            a.parallelSorted().use { c -> same(F64.TYPE, read(c), expectedBits) }
            a.parallelSort()
            same(F64.TYPE, read(a), expectedBits)
            a.data().getAtIndex(JAVA_DOUBLE, 0) shouldBe expected[0]
        }
    }
})

/** The bits of small value v in t (as randomBits gives them). */
private fun encode(t: DType<*>, v: Long): Long = when (t) {
    F64.TYPE -> java.lang.Double.doubleToRawLongBits(v.toDouble() - 500)
    F32.TYPE -> java.lang.Float.floatToRawIntBits(v.toFloat() - 500).toLong() and 0xffffffffL
    I64.TYPE -> v - 500
    U64.TYPE -> v + Long.MAX_VALUE - 2000 // across 2^63
    I32.TYPE -> (v - 500) and 0xffffffffL
    else -> (v + Int.MAX_VALUE - 2000) and 0xffffffffL
}
