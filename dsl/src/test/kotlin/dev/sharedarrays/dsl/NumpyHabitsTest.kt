package dev.sharedarrays.dsl

import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.U8
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.doubles.plusOrMinus
import io.kotest.matchers.shouldBe

/** The Kotlin forms of the factories, the axis keyword, sorting and joining. */
class NumpyHabitsTest : FunSpec({
    test("zeros, ones, full, arange, linspace and random read like numpy") {
        val z = zeros<F64>(3, 4)
        z.shape.toList() shouldBe listOf(3L, 4L)
        z.isLocal shouldBe true
        ones<I32>(5).toLongArray().toList() shouldBe List(5) { 1L }
        full<U8>(7, 2).toLongArray().toList() shouldBe listOf(7L, 7L)
        full<F32>(2.5, 2)[1] shouldBe 2.5f
        arange(4).toLongArray().toList() shouldBe listOf(0L, 1, 2, 3)
        arange(10, 0, -4).toLongArray().toList() shouldBe listOf(10L, 6, 2)
        arange(0.0, 1.0, 0.25).toDoubleArray().toList() shouldBe listOf(0.0, 0.25, 0.5, 0.75)
        linspace(0.0, 1.0, 3).toDoubleArray().toList() shouldBe listOf(0.0, 0.5, 1.0)
        linspace(0.0, 1.0).size shouldBe 50L
        random(42).uniform(2, 3).toDoubleArray().toList() shouldBe random(42).uniform(2, 3).toDoubleArray().toList()
        random(1).normal(10.0, 2.0, 100_000).mean() shouldBe (10.0 plusOrMinus 0.05)
        random(1).uniform(-1.0, 1.0, 1000).minAsDouble() shouldBe (-1.0 plusOrMinus 0.01)
    }

    test("the axis keyword reaches the per-axis operations") {
        val a = arange(6).reshape(2, 3)
        a.sum(axis = 0).toDoubleArray().toList() shouldBe listOf(3.0, 5.0, 7.0)
        a.sum(1).toDoubleArray().toList() shouldBe listOf(3.0, 12.0)
        a.mean(axis = -1).toDoubleArray().toList() shouldBe listOf(1.0, 4.0)
        a.max(axis = 0)[2] shouldBe 5L
        a.min(axis = 1)[1] shouldBe 3L
        a.argmax(axis = 1).toLongArray().toList() shouldBe listOf(2L, 2L)
        a.argmin(axis = 0).toLongArray().toList() shouldBe listOf(0L, 0L, 0L)
        a.prod(axis = 0).toDoubleArray().toList() shouldBe listOf(0.0, 4.0, 10.0)
        a.variance(axis = 1).toDoubleArray().toList() shouldBe listOf(2.0 / 3, 2.0 / 3)
        a.std(axis = 0).toDoubleArray().toList() shouldBe listOf(1.5, 1.5, 1.5)
        a.cumsum(axis = 1).toLongArray().toList() shouldBe listOf(0L, 1, 3, 3, 7, 12)
        a.cumsum(axis = 0, dtype = F64.TYPE).toDoubleArray().toList() shouldBe listOf(0.0, 1.0, 2.0, 3.0, 5.0, 7.0)
        a.variance() shouldBe (35.0 / 12 plusOrMinus 1e-12)
        a.argmax() shouldBe 5L
    }

    test("sort in place, sorted copies, concatenate and stack") {
        val a = zeros<F64>(2, 3)
        a.copyFrom(doubleArrayOf(3.0, Double.NaN, 1.0, -1.0, 5.0, 0.0))
        val byColumn = a.sorted(axis = 0)
        byColumn.toDoubleArray().map { it.toString() } shouldBe listOf("-1.0", "5.0", "0.0", "3.0", "NaN", "1.0") // NaN is no number to compare
        a.sort()
        a.toDoubleArray().map { it.toString() } shouldBe listOf("1.0", "3.0", "NaN", "-1.0", "0.0", "5.0")
        val b = arange(3).reshape(1, 3)
        val c = arange(3, 6).reshape(1, 3)
        concatenate(b, c).shape.toList() shouldBe listOf(2L, 3L)
        concatenate(b, c, axis = 1).toLongArray().toList() shouldBe listOf(0L, 1, 2, 3, 4, 5)
        stack(listOf(b, c), axis = -1).shape.toList() shouldBe listOf(1L, 3L, 2L)
        stack(b, c)[1, 0, 2] shouldBe 5L
        zeros<I64>(1).dtype shouldBe I64.TYPE
    }
})
