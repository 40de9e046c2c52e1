package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.doubles.plusOrMinus
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import kotlin.math.cos
import kotlin.math.ln
import kotlin.math.sqrt

/** The factories, concatenate and stack: values, dtypes, shapes, locality and the errors they give. */
class NDArraysTest : FunSpec({
    test("zeros, ones and full give process-local arrays of the dtype and shape asked for") {
        val z = NDArrays.zeros(I16.TYPE, 2, 3)
        z.dtype() shouldBe I16.TYPE
        z.shape().toList() shouldBe listOf(2L, 3L)
        z.toLongArray().toList() shouldBe List(6) { 0L }
        z.path().isPresent shouldBe false
        NDArrays.ones(F32.TYPE, 4).toDoubleArray().toList() shouldBe List(4) { 1.0 }
        NDArrays.full(U8.TYPE, 255L, 2, 2).toLongArray().toList() shouldBe List(4) { 255L }
        NDArrays.full(I32.TYPE, -2.9, 3).toLongArray().toList() shouldBe List(3) { -2L } // truncated, as numpy's full
        NDArrays.full(F64.TYPE, 0.25, 1, 1, 2).toDoubleArray().toList() shouldBe listOf(0.25, 0.25)
        NDArrays.full(U64.TYPE, 1.5e19, 1).getUnsigned(0).toString() shouldBe "15000000000000000000"
    }

    test("full refuses a value its integer dtype cannot hold") {
        shouldThrow<IllegalArgumentException> { NDArrays.full(U8.TYPE, 256L, 2) }.message shouldBe
            "scalar 256 is out of range for U8 (0 to 255); numpy 2 refuses it too"
        shouldThrow<IllegalArgumentException> { NDArrays.full(I8.TYPE, 128.0, 2) }.message shouldBe
            "cannot fill a I8 array with 128.0: it is out of the type's range"
        shouldThrow<IllegalArgumentException> { NDArrays.full(I64.TYPE, Double.NaN, 2) }.message shouldBe
            "cannot fill a I64 array with NaN: it is not a finite number"
        shouldThrow<IllegalArgumentException> { NDArrays.full(U64.TYPE, -1.0, 2) }
    }

    test("arange of integers: exact length, I64, numpy's values") {
        NDArrays.arange(5).toLongArray().toList() shouldBe listOf(0L, 1, 2, 3, 4)
        NDArrays.arange(-3, 3).toLongArray().toList() shouldBe listOf(-3L, -2, -1, 0, 1, 2)
        NDArrays.arange(10, 0, -3).toLongArray().toList() shouldBe listOf(10L, 7, 4, 1)
        NDArrays.arange(0, 10, 4).dtype() shouldBe I64.TYPE
        NDArrays.arange(Long.MAX_VALUE - 2, Long.MAX_VALUE).toLongArray().toList() shouldBe listOf(Long.MAX_VALUE - 2, Long.MAX_VALUE - 1)
        shouldThrow<IllegalArgumentException> { NDArrays.arange(3, 3) }.message shouldBe
            "arange(3, 3, 1) is empty; arrays have at least one element"
        shouldThrow<IllegalArgumentException> { NDArrays.arange(0, 3, 0) }.message shouldBe
            "arange(0, 3, 0) has step 0; arrays have at least one element"
        shouldThrow<IllegalArgumentException> { NDArrays.arange(Long.MIN_VALUE, Long.MAX_VALUE, 1) }.message shouldBe
            "arange(-9223372036854775808, 9223372036854775807, 1) spans more than a long; arrays have at least one element"
    }

    test("arange of floats and linspace follow numpy's formulas") {
        val a = NDArrays.arange(0.0, 1.0, 0.1).toDoubleArray()
        a.size shouldBe 10
        a[3] shouldBe 3 * ((0.0 + 0.1) - 0.0)
        NDArrays.arange(1.0, 0.0, -0.25).toDoubleArray().toList() shouldBe listOf(1.0, 0.75, 0.5, 0.25)
        shouldThrow<IllegalArgumentException> { NDArrays.arange(1.0, 0.0, 0.5) }.message shouldBe
            "arange(1.0, 0.0, 0.5) is empty; arrays have at least one element"
        shouldThrow<IllegalArgumentException> { NDArrays.arange(0.0, Double.POSITIVE_INFINITY, 1.0) }
        NDArrays.linspace(0.0, 1.0, 5).toDoubleArray().toList() shouldBe listOf(0.0, 0.25, 0.5, 0.75, 1.0)
        NDArrays.linspace(2.0, 3.0, 1).toDoubleArray().toList() shouldBe listOf(2.0)
        NDArrays.linspace(1.0, 1.0, 3).toDoubleArray().toList() shouldBe listOf(1.0, 1.0, 1.0)
        val l = NDArrays.linspace(-1.0, 0.3, 7).toDoubleArray()
        l[6] shouldBe 0.3
        l[4] shouldBe 4 * ((0.3 - -1.0) / 6) + -1.0
        shouldThrow<IllegalArgumentException> { NDArrays.linspace(0.0, 1.0, 0) }.message shouldBe
            "linspace needs num >= 1, got 0; arrays have at least one element"
    }

    test("random(seed): SplitMix64 uniforms and Box-Muller normals, the same for the same seed") {
        val u = NDArrays.random(42).uniform(2, 3)
        u.shape().toList() shouldBe listOf(2L, 3L)
        // the documented algorithm, written again here: a change of stream must be deliberate
        var state = 42L
        fun next(): Double {
            state += -0x61c8864680b583ebL
            var z = state
            z = (z xor (z ushr 30)) * -0x40a7b892e31b1a47L
            z = (z xor (z ushr 27)) * -0x6b2fb644ecceee15L
            return ((z xor (z ushr 31)) ushr 11) * 1.0 / (1L shl 53)
        }
        u.toDoubleArray().toList() shouldBe List(6) { next() }
        state = 7L
        val n = NDArrays.random(7).normal(3)
        val u1 = next()
        val u2 = next()
        n.getDouble(0) shouldBe (sqrt(-2 * ln(1 - u1)) * cos(2 * Math.PI * u2) plusOrMinus 1e-15)
        NDArrays.random(7).normal(3).toDoubleArray().toList() shouldBe n.toDoubleArray().toList()
        NDArrays.random(8).normal(3).toDoubleArray().toList() shouldNotBe n.toDoubleArray().toList()
        val big = NDArrays.random(1).normal(10.0, 2.0, longArrayOf(200_000))
        big.mean() shouldBe (10.0 plusOrMinus 0.02)
        big.std() shouldBe (2.0 plusOrMinus 0.02)
        val unit = NDArrays.random(2).uniform(100_000)
        (unit.minAsDouble() >= 0.0 && unit.maxAsDouble() < 1.0) shouldBe true
        unit.mean() shouldBe (0.5 plusOrMinus 0.01)
        NDArrays.random(3).uniform(-2.0, 5.0, longArrayOf(1000)).let { (it.minAsDouble() >= -2.0 && it.maxAsDouble() < 5.0) shouldBe true }
        shouldThrow<IllegalArgumentException> { NDArrays.random(1).normal(0.0, -1.0, longArrayOf(2)) }
    }

    test("concatenate and stack: numpy's shapes and element order, from views too") {
        val a = NDArrays.arange(6).reshape(2, 3)
        val b = NDArrays.arange(100, 103).reshape(1, 3)
        NDArrays.concatenate(listOf(a, b)).toLongArray().toList() shouldBe listOf(0L, 1, 2, 3, 4, 5, 100, 101, 102)
        val t = a.transpose() // (3, 2)
        val c = NDArrays.concatenate(listOf(t, NDArrays.arange(3).reshape(3, 1)), -1)
        c.shape().toList() shouldBe listOf(3L, 3L)
        c.toLongArray().toList() shouldBe listOf(0L, 3, 0, 1, 4, 1, 2, 5, 2)
        val s = NDArrays.stack(listOf(a, a.slice(1, Long.MIN_VALUE, Long.MAX_VALUE, -1)), 1)
        s.shape().toList() shouldBe listOf(2L, 2L, 3L)
        s.toLongArray().toList() shouldBe listOf(0L, 1, 2, 2, 1, 0, 3, 4, 5, 5, 4, 3)
        NDArrays.stack(listOf(a, a), -1).shape().toList() shouldBe listOf(2L, 3L, 2L)
    }

    test("concatenate and stack errors name the shapes and dtypes") {
        val a = NDArrays.zeros(F64.TYPE, 2, 3)
        val b = NDArrays.zeros(F64.TYPE, 2, 4)
        shouldThrow<ShapeMismatchException> { NDArrays.concatenate(listOf(a, b), 0) }.message shouldBe
            "cannot concatenate shapes [2, 3], [2, 4] along axis 0: axis 1 differs (3 vs 4); every axis but the joined one must match"
        NDArrays.concatenate(listOf(a, b), 1).shape().toList() shouldBe listOf(2L, 7L)
        shouldThrow<ShapeMismatchException> { NDArrays.concatenate(listOf(a, NDArrays.zeros(F64.TYPE, 6)), 0) }.message shouldBe
            "cannot concatenate shapes [2, 3], [6]: the arrays have different numbers of dimensions (2 and 1)"
        shouldThrow<ShapeMismatchException> { NDArrays.stack(listOf(a, b)) }.message shouldBe
            "cannot stack shapes [2, 3], [2, 4]: all arrays need the same shape"
        @Suppress("UNCHECKED_CAST")
        val i = NDArrays.zeros(I32.TYPE, 2, 3) as SharedNDArray<F64>
        shouldThrow<DTypeMismatchException> { NDArrays.concatenate(listOf(a, i)) }.message shouldBe
            "cannot concatenate arrays of dtypes F64, I32: they need one dtype; convert with astype first"
        shouldThrow<IndexOutOfBoundsException> { NDArrays.concatenate(listOf(a, a), 2) }.message shouldBe
            "axis 2 is out of bounds for an array of 2 dimensions"
        shouldThrow<IndexOutOfBoundsException> { NDArrays.stack(listOf(a, a), 3) }.message shouldBe
            "axis 3 is out of bounds for an array of 3 dimensions"
        shouldThrow<IllegalArgumentException> { NDArrays.concatenate(emptyList<SharedNDArray<F64>>()) }.message shouldBe
            "concatenate needs at least one array"
        SharedArrays.create(F64.TYPE, 2, 3).let { closed ->
            closed.close()
            shouldThrow<IllegalStateException> { NDArrays.concatenate(listOf(a, closed)) }
        }
    }

    test("cumsum with a dtype, and the errors of the axis operations") {
        val a = NDArrays.full(I8.TYPE, 100L, 3)
        a.cumsum(0).`as`(I64.TYPE).toLongArray().toList() shouldBe listOf(100L, 200, 300)
        a.cumsum(0, I8.TYPE).toLongArray().toList() shouldBe listOf(100L, -56, 44) // wraps as numpy's cumsum(dtype=int8)
        a.cumsum(0, F32.TYPE).toDoubleArray().toList() shouldBe listOf(100.0, 200.0, 300.0)
        shouldThrow<DTypeMismatchException> { NDArrays.ones(F64.TYPE, 2).cumsum(0, I64.TYPE) }.message shouldBe
            "cannot accumulate a F64 array in I64: a float array sums in F64 or F32; convert it with astype first"
        val m = NDArrays.zeros(F64.TYPE, 2, 3)
        shouldThrow<IndexOutOfBoundsException> { m.argmax(2) }.message shouldBe "axis 2 is out of bounds for an array of 2 dimensions"
        shouldThrow<IndexOutOfBoundsException> { m.sort(-3) }.message shouldBe "axis -3 is out of bounds for an array of 2 dimensions"
        shouldThrow<IndexOutOfBoundsException> { m.cumsum(5) }
        shouldThrow<DTypeMismatchException> { m.prodAsLong() }.message shouldBe
            "prodAsLong() is for integer arrays, this one holds F64; use prod()"
        m.sum(-1).shape().toList() shouldBe listOf(2L)
        m.variance(-2).shape().toList() shouldBe listOf(3L)
    }
})
