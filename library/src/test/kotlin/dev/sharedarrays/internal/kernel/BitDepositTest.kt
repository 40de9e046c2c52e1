package dev.sharedarrays.internal.kernel

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

/** Which CPUs, as /proc/cpuinfo names them, count as having a fast pdep; 8 mask bits as 8 bytes either way. */
class BitDepositTest : FunSpec({
    val bmi2 = listOf("fpu", "avx2", "bmi1", "bmi2")

    test("AMD from Zen 3 (family 25) on and Intel with BMI2: fast") {
        BitDeposit.fast("AuthenticAMD", "25", bmi2) shouldBe true
        BitDeposit.fast("AuthenticAMD", "26", bmi2) shouldBe true
        BitDeposit.fast("GenuineIntel", "6", bmi2) shouldBe true
    }

    test("AMD before Zen 3 (Excavator 21, Zen 1/2 23), Hygon, other vendors, no BMI2 or an unreadable family: not fast") {
        BitDeposit.fast("AuthenticAMD", "21", bmi2) shouldBe false
        BitDeposit.fast("AuthenticAMD", "23", bmi2) shouldBe false
        BitDeposit.fast("HygonGenuine", "24", bmi2) shouldBe false
        BitDeposit.fast("CentaurHauls", "7", bmi2) shouldBe false
        BitDeposit.fast("GenuineIntel", "6", listOf("fpu", "avx2", "bmi1")) shouldBe false
        BitDeposit.fast("AuthenticAMD", "", bmi2) shouldBe false
    }

    test("bytes, by pdep and by the table: bit k of the low 8 as byte k, 0 or 1; the higher bits ignored") {
        for (b in 0 until 256) {
            val want = (0 until 8).fold(0L) { acc, k -> acc or ((b.toLong() ushr k and 1L) shl (8 * k)) }
            for (bits in listOf(b.toLong(), b.toLong() or (0x5a5aL shl 8) or Long.MIN_VALUE)) {
                BitDeposit.bytes(bits) shouldBe want
                BitDeposit.table(bits) shouldBe want
                java.lang.Long.expand(bits, 0x0101010101010101L) shouldBe want
            }
        }
    }
})
