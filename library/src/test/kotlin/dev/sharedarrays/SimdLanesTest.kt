package dev.sharedarrays

import dev.sharedarrays.internal.kernel.BitDeposit
import dev.sharedarrays.testing.ArithmeticLaneCheck
import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.LaneCheck
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe

/**
 * The SIMD loops write out several vectors a pass (the comparisons those of each 32 elements for
 * vectors of 256 bits, of each 64 for wider ones, and loop over them for narrower ones; the in-place arithmetic with
 * a scalar operand 8 vectors on long rows, then single ones): each width's code, against the
 * scalar loops (child JVMs limited to AVX2 and to SSE for the widths this machine does not pick
 * itself; at AVX2 once with pdep taken as fast and once as slow: BitDeposit's two ways of a comparison's
 * bytes, and the 4-byte elements' blends or steps of 8).
 */
class SimdLanesTest : FunSpec({
    val x86 = System.getProperty("os.arch") in setOf("amd64", "x86_64")
    // other machines pick their own width; x86 ones are made to take each
    val widths = if (x86) listOf(listOf("-XX:UseAVX=2") to 4, listOf("-XX:UseAVX=0") to 2) else emptyList()
    // at 256 bits the comparisons of 8- and 4-byte elements take other code where pdep is slow (BitDeposit)
    val compareWidths = if (x86) {
        listOf(true, false).map { listOf("-XX:UseAVX=2", "-D${BitDeposit.PROPERTY}=$it") to 4 } + listOf(listOf("-XX:UseAVX=0") to 2)
    } else {
        emptyList()
    }

    fun inChildren(command: String, children: List<Pair<List<String>, Int>>) {
        for ((flags, lanes) in children) {
            ChildJvm(command, jvmArgs = listOf("--add-modules", "jdk.incubator.vector") + flags).use { c ->
                flags.firstOrNull { it.startsWith("-D${BitDeposit.PROPERTY}=") }?.let { c.expectLine("BIT_DEPOSIT ") shouldBe it.substringAfter('=') }
                c.expectLine("LANES ").toInt() shouldBe lanes
                c.expectLine("MISMATCHES ") shouldBe "0 -"
            }
        }
    }

    test("the SIMD comparisons agree with the scalar ones, every type, operator and operand, at this machine's vector width") {
        LaneCheck.lanes() shouldBe jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED.length()
        LaneCheck.mismatches().shouldBeEmpty()
    }

    test("... and with 256-bit (AVX2, with and without pdep) and 128-bit (SSE) vectors, in child JVMs") {
        inChildren("compare-lanes", compareWidths)
    }

    test("the SIMD in-place arithmetic agrees with the scalar loops, every type, operator, operand, row length and start") {
        ArithmeticLaneCheck.lanes() shouldBe jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED.length()
        ArithmeticLaneCheck.mismatches().shouldBeEmpty()
    }

    test("... and with 256-bit (AVX2) and 128-bit (SSE) vectors, in child JVMs") {
        inChildren("arith-lanes", widths)
    }
})
