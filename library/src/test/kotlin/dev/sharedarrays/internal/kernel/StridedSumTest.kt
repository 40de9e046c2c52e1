package dev.sharedarrays.internal.kernel

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.doubles.shouldBeLessThanOrEqual
import io.kotest.matchers.shouldBe
import java.lang.foreign.Arena
import java.lang.foreign.ValueLayout.JAVA_DOUBLE
import java.math.BigDecimal
import java.util.SplittableRandom

/**
 * F64 sums of rows whose elements are 2, 4 or 8 apart (the SIMD loop adds whole vectors and keeps
 * the row's lanes) against an exact sum: every length around the vector and block sizes, rows at
 * odd offsets, NaNs and infinities between the row's elements that must not reach the sum, and
 * ones in the row that must.
 */
class StridedSumTest : FunSpec({
    fun exact(xs: List<Double>): Double = xs.fold(BigDecimal.ZERO) { acc, x -> acc + BigDecimal(x) }.toDouble()

    test("sums of rows 2, 4 and 8 elements apart match the exact sum, with NaN and inf between their elements") {
        val rnd = SplittableRandom(21)
        val vectorBefore = Simd.use(true)
        try {
            Arena.ofConfined().use { arena ->
                for (k in listOf(2, 4, 8)) {
                    for (n in listOf(0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 4095, 4096, 4097, 10_001)) {
                        for (first in listOf(0, 3)) {
                            val s = arena.allocate(JAVA_DOUBLE, (first + n * k + 8).toLong())
                            for (i in 0 until s.byteSize() / 8) {
                                // between the row's elements: values that would show if they leaked
                                s.setAtIndex(JAVA_DOUBLE, i, listOf(Double.NaN, Double.POSITIVE_INFINITY, 1e300)[rnd.nextInt(3)])
                            }
                            val row = List(n) { rnd.nextDouble(-1e3, 1e3) }
                            row.forEachIndexed { j, x -> s.setAtIndex(JAVA_DOUBLE, (first + j * k).toLong(), x) }
                            for (vector in listOf(true, false)) {
                                Simd.use(vector)
                                val got = Kernels.reduceFloat(ElementType.F64, Op.SUM, s, first * 8L, k * 8L, n.toLong())
                                val want = exact(row)
                                Math.abs(got - want) shouldBeLessThanOrEqual 1e-12 * row.sumOf { Math.abs(it) } + 0.0
                            }
                            Simd.use(true)
                        }
                    }
                }
            }
        } finally {
            Simd.use(vectorBefore)
        }
    }

    test("a NaN or an infinity in the row reaches the sum") {
        Arena.ofConfined().use { arena ->
            val n = 1000
            val s = arena.allocate(JAVA_DOUBLE, (2 * n).toLong())
            for (i in 0 until 2 * n) {
                s.setAtIndex(JAVA_DOUBLE, i.toLong(), 1.0)
            }
            Kernels.reduceFloat(ElementType.F64, Op.SUM, s, 0, 16, n.toLong()) shouldBe n.toDouble()
            s.setAtIndex(JAVA_DOUBLE, 2L * 500, Double.POSITIVE_INFINITY)
            Kernels.reduceFloat(ElementType.F64, Op.SUM, s, 0, 16, n.toLong()) shouldBe Double.POSITIVE_INFINITY
            s.setAtIndex(JAVA_DOUBLE, 2L * 999, Double.NaN)
            Kernels.reduceFloat(ElementType.F64, Op.SUM, s, 0, 16, n.toLong()).isNaN() shouldBe true
        }
    }
})
