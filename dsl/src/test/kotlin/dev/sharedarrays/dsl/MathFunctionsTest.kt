package dev.sharedarrays.dsl

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DTypeMismatchException
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.I8
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.ShapeMismatchException
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import kotlin.math.PI
import kotlin.math.abs
import kotlin.math.floor
import kotlin.math.sqrt

class MathFunctionsTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    fun near(x: Float, want: Double) = abs(x - want) <= 1e-6 * abs(want)

    test("sqrt(a) is a new array, sqrt(a, out = a) works in place, and kotlin.math's sqrt still applies to numbers") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 2), anon).use { a ->
            a.copyFrom(doubleArrayOf(4.0, 9.0, 2.0, -1.0))
            val r = sqrt(a)
            r.toDoubleArray().toList().take(3) shouldBe listOf(2.0, 3.0, sqrt(2.0))
            r[1, 1].isNaN() shouldBe true
            a[0, 0] shouldBe 4.0
            sqrt(a, out = a) shouldBe a
            a[0, 1] shouldBe 3.0
            abs(-2) shouldBe 2
            floor(-0.5) shouldBe -1.0
        }
    }

    test("every function has its numpy name, with and without out") {
        SharedArrays.create(F32.TYPE, longArrayOf(3), anon).use { a ->
            a.copyFrom(floatArrayOf(-1.5f, 0.5f, 2.5f))
            floor(a).toFloatArray().toList() shouldBe listOf(-2f, 0f, 2f)
            ceil(a).toFloatArray().toList() shouldBe listOf(-1f, 1f, 3f)
            rint(a).toFloatArray().toList() shouldBe listOf(-2f, 0f, 2f)
            sign(a).toFloatArray().toList() shouldBe listOf(-1f, 1f, 1f)
            abs(a).toFloatArray().toList() shouldBe listOf(1.5f, 0.5f, 2.5f)
            pow(a, 2).toFloatArray().toList() shouldBe listOf(2.25f, 0.25f, 6.25f)
            near(pow(a, a)[2], Math.pow(2.5, 2.5)) shouldBe true
            clip(a, 0, 1).toFloatArray().toList() shouldBe listOf(0f, 0.5f, 1f)
            near(exp(log(a))[2], 2.5) shouldBe true
            near(expm1(log1p(a))[2], 2.5) shouldBe true
            near(tanh(a)[1], kotlin.math.tanh(0.5)) shouldBe true
            a.fill(PI / 2)
            sin(a, out = a)[0] shouldBe 1f
            a.fill(0.0)
            cos(a)[0] shouldBe 1f
            tan(a)[0] shouldBe 0f
        }
    }

    test("integer arrays take abs, sign and clip with Int bounds; float functions name astype") {
        SharedArrays.create(I8.TYPE, longArrayOf(3), anon).use { a ->
            a.copyFrom(byteArrayOf(-128, -3, 100))
            abs(a).toLongArray().toList() shouldBe listOf(-128L, 3L, 100L)
            sign(a).toLongArray().toList() shouldBe listOf(-1L, -1L, 1L)
            clip(a, -5, 1000, out = a).toLongArray().toList() shouldBe listOf(-5L, -3L, 100L)
            shouldThrow<DTypeMismatchException> { sqrt(a) }.message shouldContain "astype(F64.TYPE)"
        }
    }

    test("a row broadcasts into a matrix out; shapes that do not broadcast are named") {
        SharedArrays.create(F64.TYPE, longArrayOf(3), anon).use { row ->
            SharedArrays.create(F64.TYPE, longArrayOf(2, 3), anon).use { m ->
                row.copyFrom(doubleArrayOf(1.0, 4.0, 9.0))
                sqrt(row, out = m)
                m.toDoubleArray().toList() shouldBe listOf(1.0, 2.0, 3.0, 1.0, 2.0, 3.0)
                shouldThrow<ShapeMismatchException> { sqrt(m, out = row) }.message shouldBe
                    "sqrt: the input of shape [2, 3] does not broadcast to out's shape [3] " +
                    "(numpy's rule: from the last axis, each dimension equal or 1; out is never stretched)"
            }
        }
        SharedArrays.create(I32.TYPE, longArrayOf(2), anon).use { a -> clip(a, 0.0, 3.0)[1] shouldBe 0 }
    }
})
