package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.File

/**
 * A SIGKILLed creator's segments are swept; a live process's segment, a segment a live process
 * still has attached, persistent ones and foreign files are not. Runs in a private shm
 * directory (SHARED_ARRAYS_DIR) through the command line of a child JVM.
 */
class SweepTest : FunSpec({
    test("sweep removes exactly the segments of a SIGKILLed child") {
        val dir = scratchDir("sweep")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        fun cli(vararg args: String): String = ChildJvm("cli", *args, env = env).use { c ->
            c.expectLine("EXIT ").toInt() shouldBe 0
            c.output()
        }
        val started = mutableListOf<ChildJvm>()
        try {
            val foreign = File(dir, "foreign.dat").apply { writeText("not a segment") }
            val foreignNpy = File(dir, "foreign.npy").apply { writeBytes(ByteArray(3 * 4096) { (it % 251).toByte() }) }
            val victim = ChildJvm("hold", "3", "1000", env = env).also { started += it }
            val victimHandles = (1..3).map { ArrayHandle.parse(victim.expectLine("HANDLE ")) as ArrayHandle.Shm }
            val live = ChildJvm("hold", "1", "1000", env = env).also { started += it }
            val liveHandle = ArrayHandle.parse(live.expectLine("HANDLE ")) as ArrayHandle.Shm
            // a live process keeps one of the victim's arrays in use
            val attacher = ChildJvm("attach-hold", victimHandles[2].toString(), env = env).also { started += it }
            attacher.expectLine("ATTACHED")
            // a dead create's temporary file, killed before its first write (SweepImpostorTest: other states, and impostors)
            val deadTemp = File(dir, ".sa-tmp-999999999-1-0000abcd").apply { writeBytes(ByteArray(0)) }

            victim.kill()

            val ls = cli("ls")
            ls shouldContain victimHandles[0].name()
            ls shouldContain "${victim.pid} dead"
            ls shouldContain "${live.pid} alive"
            ls shouldContain "${attacher.pid} alive"

            val dry = cli("sweep", "--dry-run")
            dry shouldContain "would remove 3 segment(s)"
            File(dir, victimHandles[0].name()).exists() shouldBe true // dry run removes nothing

            val swept = cli("sweep")
            swept shouldContain "removed 3 segment(s)"
            val names = dir.list()!!.toList()
            names shouldContainExactlyInAnyOrder listOf(victimHandles[2].name(), liveHandle.name(), "foreign.dat", "foreign.npy")
            foreign.readText() shouldBe "not a segment"
            foreignNpy.readBytes().size shouldBe 3 * 4096
            deadTemp.exists() shouldBe false

            // once the last process using it dies, the remaining one goes too
            attacher.kill()
            cli("sweep") shouldContain "removed 1 segment(s)"
            dir.list()!!.toList() shouldContainExactlyInAnyOrder listOf(liveHandle.name(), "foreign.dat", "foreign.npy")

            val inspect = cli("inspect", liveHandle.toString())
            inspect shouldContain "creator    pid ${live.pid} (alive)"
            inspect shouldContain "dtype      F64 (<f8)"
            inspect shouldContain "shape      [1000]"
        } finally {
            started.forEach { it.close() }
            dir.deleteRecursively()
        }
    }

    test("rm removes our segment and refuses a foreign file") {
        val dir = scratchDir("rm")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        try {
            val foreign = File(dir, "keep").apply { writeText("x".repeat(20000)) }
            ChildJvm("cli", "rm", "keep", env = env).use { c ->
                c.expectLine("EXIT ").toInt() shouldBe 1
                c.output() shouldContain "refusing to remove ${File(dir, "keep")}: ${File(dir, "keep")} is not a valid " +
                    "shared-arrays segment: file size 20000 is not a multiple of 4096"
            }
            foreign.exists() shouldBe true
            ChildJvm("hold", "1", "10", env = env).use { holder ->
                val h = ArrayHandle.parse(holder.expectLine("HANDLE ")) as ArrayHandle.Shm
                // its creator holds it: rm alone refuses, --force removes it
                ChildJvm("cli", "rm", h.name(), env = env).use { c ->
                    c.expectLine("EXIT ").toInt() shouldBe 1
                    c.output() shouldContain "it is in use by pid ${holder.pid}"
                    c.output() shouldContain "--force"
                }
                File(dir, h.name()).exists() shouldBe true
                ChildJvm("cli", "rm", "--force", h.name(), env = env).use { c -> c.expectLine("EXIT ").toInt() shouldBe 0 }
                File(dir, h.name()).exists() shouldBe false
            }
            ChildJvm("cli", "bogus", env = env).use { c -> c.expectLine("EXIT ").toInt() shouldBe 2 }
        } finally {
            dir.deleteRecursively()
        }
    }
})
