package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.math.BigInteger

/** Exact integer semantics: wrap on store and on arithmetic, exact extremes, unsigned reads. */
class IntegerSemanticsTest : FunSpec({
    fun <T : DType<T>> arr(t: T, vararg shape: Long) = SharedArrays.create(t, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS))

    test("u8: storing 300 reads 44; arithmetic wraps in 8 bits") {
        arr(U8.TYPE, 4).use { a ->
            a.setLong(0, 300)
            a.getLong(0) shouldBe 44
            a.setDouble(1, 300.0)
            a.getLong(1) shouldBe 44
            a.fill(250L)
            a.add(10)
            a.toLongArray().toList() shouldBe List(4) { 4L }
            a.sub(5)
            a.getLong(0) shouldBe 255
        }
    }

    test("i32: 2^31 wraps to -2^31, on store and on add") {
        arr(I32.TYPE, 2).use { a ->
            a.setLong(0, 1L shl 31)
            a.getLong(0) shouldBe Int.MIN_VALUE.toLong()
            a.setLong(1, Int.MAX_VALUE.toLong())
            a.add(1)
            a.getLong(1) shouldBe Int.MIN_VALUE.toLong()
        }
    }

    test("u16: 65535 * 65535 wraps in 16 bits") {
        arr(U16.TYPE, 3).use { a ->
            a.fill(65535L)
            a.mul(65535)
            a.getLong(0) shouldBe (65535L * 65535L and 0xFFFF) // 1
            a.getLong(0) shouldBe 1
            arr(U16.TYPE, 3).use { b ->
                b.fill(65535L)
                a.fill(65535L)
                a.mul(b)
                a.toLongArray().toList() shouldBe listOf(1L, 1L, 1L)
            }
        }
    }

    test("i64 min and max are exact beyond 2^53") {
        arr(I64.TYPE, 3).use { a ->
            val big = (1L shl 53) + 1
            a.copyFrom(longArrayOf(big, big + 2, -big - 4))
            a.maxAsLong() shouldBe big + 2
            a.minAsLong() shouldBe -big - 4
            a.maxAsDouble() shouldBe (big + 2).toDouble()
            a.sum() shouldBe (big + big + 2 - big - 4).toDouble()
        }
    }

    test("u64 values above 2^63 read back as unsigned") {
        arr(U64.TYPE, 3).use { a ->
            a.setLong(0, -1)               // 2^64 - 1
            a.setDouble(1, 1.8e19)         // above 2^63
            a.setLong(2, 5)
            a.getUnsigned(0) shouldBe BigInteger("18446744073709551615")
            java.lang.Long.toUnsignedString(a.getLong(1)) shouldBe "18000000000000000000"
            a.getDouble(0) shouldBe 1.8446744073709552E19
            a.maxAsLong() shouldBe -1L     // the unsigned maximum, as bits
            a.minAsLong() shouldBe 5
            a.toList()[0] shouldBe BigInteger("18446744073709551615")
            a.divide(2)
            a.getUnsigned(0) shouldBe BigInteger("9223372036854775807")
        }
    }

    test("integer division is floor division; by zero it is refused before anything is written") {
        arr(I32.TYPE, 4).use { a ->
            a.copyFrom(intArrayOf(7, -7, 6, -1))
            a.divide(2)
            a.toLongArray().toList() shouldBe listOf(3L, -4L, 3L, -1L)
            shouldThrow<ArithmeticException> { a.divide(0) }.message shouldBe
                "integer division by zero: I32 array divided by 0; nothing was written"
            arr(I32.TYPE, 4).use { b ->
                b.copyFrom(intArrayOf(1, 1, 0, 1))
                shouldThrow<ArithmeticException> { a.divide(b) }.message shouldContain "divisor I32 array has a zero element"
                a.toLongArray().toList() shouldBe listOf(3L, -4L, 3L, -1L)
            }
        }
    }

    test("scalars must fit the element type, and floats do not go into integer arrays") {
        arr(U8.TYPE, 2).use { a ->
            shouldThrow<IllegalArgumentException> { a.add(300) }.message shouldBe
                "scalar 300 is out of range for U8 (0 to 255); numpy 2 refuses it too"
            shouldThrow<DTypeMismatchException> { a.add(2.5) }.message shouldContain "cannot add U8 elements by the float 2.5"
            a.add(2.0) // a whole number is fine
            a.getLong(0) shouldBe 2
        }
    }
})
