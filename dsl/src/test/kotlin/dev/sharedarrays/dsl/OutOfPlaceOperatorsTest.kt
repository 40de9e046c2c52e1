package dev.sharedarrays.dsl

import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.ShapeMismatchException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

class OutOfPlaceOperatorsTest : FunSpec({
    fun f64(vararg v: Double, shape: LongArray = longArrayOf(v.size.toLong())): SharedNDArray<F64> =
        SharedArrays.create(F64.TYPE, *shape).use { s -> s.copyFrom(v); s.copy() }

    test("a + b broadcasts a row; a - 1.0, 2.0 * a, 2.0 - a, 1.0 / a, -a and a / b give new process-local arrays") {
        val a = f64(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, shape = longArrayOf(2, 3))
        val row = f64(10.0, 20.0, 30.0)
        val c = a + row
        c.shape.toList() shouldBe listOf(2L, 3L)
        c.toDoubleArray().toList() shouldBe listOf(11.0, 22.0, 34.0, 18.0, 36.0, 62.0)
        c.isLocal shouldBe true
        (a - 1.0).toDoubleArray().toList() shouldBe listOf(0.0, 1.0, 3.0, 7.0, 15.0, 31.0)
        (2.0 * a)[1, 2] shouldBe 64.0
        (2.0 - a)[0, 2] shouldBe -2.0
        (1.0 / a)[0, 2] shouldBe 0.25
        (-a)[1, 0] shouldBe -8.0
        (a / a).toDoubleArray().toList() shouldBe List(6) { 1.0 }
        val n = 3
        (a * n)[0, 1] shouldBe 6.0
        a.toDoubleArray().toList() shouldBe listOf(1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
        shouldThrow<ShapeMismatchException> { a + f64(1.0, 2.0) }
        c.share().use { s -> s.isLocal shouldBe false; s[1, 2] shouldBe 62.0 }
    }

    test("integer arrays: a / 2 is floor division, 1 - a wraps nothing away, and val a += b stays in place") {
        val a = SharedArrays.create(I32.TYPE, 3).use { s -> s.copyFrom(intArrayOf(-7, 7, 9)); s.copy() }
        (a / 2).toLongArray().toList() shouldBe listOf(-4L, 3L, 4L)
        (1 - a).toLongArray().toList() shouldBe listOf(8L, -6L, -8L)
        a += a
        a.toLongArray().toList() shouldBe listOf(-14L, 14L, 18L)
    }
})
