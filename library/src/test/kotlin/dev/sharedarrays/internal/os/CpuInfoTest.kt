package dev.sharedarrays.internal.os

import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.util.stream.Stream

/** /proc/cpuinfo's first processor block, as BitDeposit and JdkSimdSort read it. */
class CpuInfoTest : FunSpec({
    test("the first block's entries, the first of a repeated key, lines without a colon skipped") {
        val text = """
            processor	: 0
            vendor_id	: AuthenticAMD
            cpu family	: 25
            model name	: AMD EPYC: a name with a colon
            flags		: fpu avx2  bmi2
            flags		: later
            no colon here

            processor	: 1
            vendor_id	: GenuineIntel
        """.trimIndent()
        val cpu = CpuInfo.parse(Stream.of(*text.split("\n").toTypedArray()))
        cpu["vendor_id"] shouldBe "AuthenticAMD"
        cpu["cpu family"] shouldBe "25"
        cpu["model name"] shouldBe "AMD EPYC: a name with a colon"
        CpuInfo.flags(cpu) shouldBe listOf("fpu", "avx2", "bmi2")
        cpu.containsKey("no colon here") shouldBe false
    }

    test("no flags entry, or none at all: no flags") {
        CpuInfo.flags(mapOf("vendor_id" to "x")) shouldBe emptyList()
        CpuInfo.flags(CpuInfo.parse(Stream.empty())) shouldBe emptyList()
    }

    test("this machine's first processor has a vendor") {
        if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/cpuinfo")) && System.getProperty("os.arch") in setOf("amd64", "x86_64")) {
            CpuInfo.first()["vendor_id"].isNullOrBlank() shouldBe false
        }
    }
})
