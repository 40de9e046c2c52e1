package dev.sharedarrays

import dev.sharedarrays.internal.array.AxisReduction
import dev.sharedarrays.internal.kernel.Simd
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import kotlin.math.abs
import kotlin.random.Random

/**
 * F64 sum, mean, min and max along axis 0 walked across the rows, the way a C-order matrix is
 * reduced by columns: with the SIMD loop (whole vectors of columns, four rows at a time, then the
 * rows left over) and without it, over row counts around 4 and column counts around a vector's
 * width and a block's (2048), NaNs and -0.0 included, against sums and extremes by plain loops.
 */
class AxisAcrossRowsTest : FunSpec({
    test("per-column sums, means, minima and maxima of F64 matrices equal plain loops, SIMD on and off") {
        val walkBefore = AxisReduction.forceLaneWalk(false)
        val simdBefore = Simd.use(true)
        val rnd = Random(77)
        try {
            for (simd in listOf(true, false)) {
                Simd.use(simd)
                for (rows in listOf(2, 3, 4, 5, 6, 8, 9, 13)) {
                    for (cols in listOf(7, 8, 9, 17, 31, 2049)) {
                        val a = NDArrays.zeros(F64.TYPE, rows.toLong(), cols.toLong())
                        val v = Array(rows) { DoubleArray(cols) }
                        for (i in 0 until rows) for (j in 0 until cols) {
                            val x = when (rnd.nextInt(40)) {
                                0 -> Double.NaN
                                1 -> -0.0
                                else -> rnd.nextDouble(-1e3, 1e3)
                            }
                            v[i][j] = x
                            a.setDouble(i.toLong() * cols + j, x)
                        }
                        val sum = a.sum(0)
                        val mean = a.mean(0)
                        val min = a.min(0)
                        val max = a.max(0)
                        for (j in 0 until cols) {
                            withClue("simd=$simd ${rows}x$cols column $j") {
                                val col = (0 until rows).map { v[it][j] }
                                val s = col.sum()
                                if (s.isNaN()) {
                                    sum.getDouble(j.toLong()).isNaN() shouldBe true
                                    mean.getDouble(j.toLong()).isNaN() shouldBe true
                                } else {
                                    (abs(sum.getDouble(j.toLong()) - s) <= 1e-12 * col.sumOf { abs(it) }) shouldBe true
                                    (abs(mean.getDouble(j.toLong()) - s / rows) <= 1e-12 * col.sumOf { abs(it) } / rows) shouldBe true
                                }
                                // Math.min/max keep NaN and order -0.0 below 0.0, as numpy's minimum/maximum
                                min.getDouble(j.toLong()).toRawBits() shouldBe col.reduce { x, y -> Math.min(x, y) }.toRawBits()
                                max.getDouble(j.toLong()).toRawBits() shouldBe col.reduce { x, y -> Math.max(x, y) }.toRawBits()
                            }
                        }
                    }
                }
            }
        } finally {
            Simd.use(simdBefore)
            AxisReduction.forceLaneWalk(walkBefore)
        }
    }
})
