package dev.sharedarrays

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

/** argmax/argmin reduce blocks of elements with the SIMD kernels, then scan the best block: ties and NaNs across blocks. */
class ArgBlocksTest : FunSpec({
    val n = 200_003L // several blocks and a ragged last one

    test("the first of equal extremes wins across blocks; a NaN wins wherever it is") {
        SharedArrays.create(F64.TYPE, longArrayOf(n), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            for (i in 0 until n) a.setDouble(i, (i % 1000).toDouble() / 1000)
            a.setDouble(150_001, 5.0)
            a.setDouble(40_000, 5.0)
            a.setDouble(190_000, -5.0)
            a.setDouble(70_000, -5.0)
            a.argmax() shouldBe 40_000L
            a.argmin() shouldBe 70_000L
            a.setDouble(n - 1, Double.NaN)
            a.setDouble(120_000, Double.NaN)
            a.argmax() shouldBe 120_000L
            a.argmin() shouldBe 120_000L
        }
    }

    test("integers and unsigned integers: ties across blocks, the last element") {
        SharedArrays.create(I32.TYPE, longArrayOf(n), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            for (i in 0 until n) a.setLong(i, i % 777)
            a.setLong(n - 1, 1_000_000)
            a.argmax() shouldBe n - 1
            a.setLong(33_000, 1_000_000)
            a.argmax() shouldBe 33_000L
            a.argmin() shouldBe 0L
        }
        SharedArrays.create(U64.TYPE, longArrayOf(n), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            for (i in 0 until n) a.setLong(i, 1L + i % 5)
            a.setLong(99_999, -1L) // 2^64 - 1 unsigned: the largest
            a.argmax() shouldBe 99_999L
            a.argmin() shouldBe 0L
        }
    }
})
