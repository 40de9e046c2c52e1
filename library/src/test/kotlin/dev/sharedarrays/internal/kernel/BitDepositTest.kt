package dev.sharedarrays.internal.kernel

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

/** Which CPUs, as /proc/cpuinfo names them, count as having a fast pdep. */
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

    test("bytes: bit k of the low 8 as byte k, 0 or 1; the higher bits ignored (this JVM's path: pdep or the table)") {
        for (b in 0 until 256) {
            val want = (0 until 8).fold(0L) { acc, k -> acc or ((b.toLong() ushr k and 1L) shl (8 * k)) }
            BitDeposit.bytes(b.toLong()) shouldBe want
            BitDeposit.bytes(b.toLong() or (0x5a5aL shl 8) or Long.MIN_VALUE) shouldBe want
        }
    }
})
