package dev.sharedarrays.dsl

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.U64
import dev.sharedarrays.U8
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

class OperatorsTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    test("typed element access, slicing with ranges, in-place operators and typed min/max") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), anon).use { a ->
            a[1, 2] = 4.5
            val x: Double = a[1, 2]
            x shouldBe 4.5
            a += 2.0
            a[0, 0] shouldBe 2.0
            val v = a[0..1, 1 until 3]
            v.shape().toList() shouldBe listOf(2L, 2L)
            v[1, 1] shouldBe 6.5
            v *= 2
            a[1, 2] shouldBe 13.0
            a[1, all].toDoubleArray().toList() shouldBe listOf(2.0, 4.0, 13.0)
            a[all, 2].toDoubleArray().toList() shouldBe listOf(4.0, 13.0)
            a[1, 2 downTo 0].toDoubleArray().toList() shouldBe listOf(13.0, 4.0, 2.0)
            a[0 until 2, 0 until 3 step 2].shape().toList() shouldBe listOf(2L, 2L)
            a.max() shouldBe 13.0
            a.min() shouldBe 2.0
            a += a
            a[1, 2] shouldBe 26.0
            shouldThrow<IndexOutOfBoundsException> { a[2, 0] }.message shouldBe
                "index 2 is out of bounds for axis 0 with size 2 (shape [2, 3])"
        }
    }

    test("integer element types come back as Int, Long, ULong and UByte") {
        SharedArrays.create(I32.TYPE, longArrayOf(3), anon).use { a ->
            a[0] = Int.MAX_VALUE
            a += 1
            val i: Int = a[0]
            i shouldBe Int.MIN_VALUE
            a /= 2
            a[0] shouldBe Int.MIN_VALUE / 2
            shouldThrow<ArithmeticException> { a /= 0 }
        }
        SharedArrays.create(U8.TYPE, longArrayOf(2), anon).use { a ->
            a[0] = 200u
            a += 100
            val b: UByte = a[0]
            b shouldBe 44.toUByte()
            a.max() shouldBe 100.toUByte() // a[1] was 0, now 100
            a.min() shouldBe 44.toUByte()
        }
        SharedArrays.create(U64.TYPE, longArrayOf(2), anon).use { a ->
            a[0] = ULong.MAX_VALUE
            a.max() shouldBe ULong.MAX_VALUE
            a[0] shouldBe 18446744073709551615uL
        }
        SharedArrays.create(I64.TYPE, longArrayOf(2), anon).use { a ->
            a[0] = (1L shl 53) + 1
            a.max() shouldBe (1L shl 53) + 1
        }
    }
})
