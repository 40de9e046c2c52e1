package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.ints.shouldBeGreaterThanOrEqual
import io.kotest.matchers.shouldBe
import java.io.File

/**
 * Sweep against attach: a dead creator's segments, two processes sweeping in a loop, a third
 * attaching and closing them in a loop. Sweep decides by flock, so a segment is never unlinked
 * while a process has it attached (before, a sweep that had checked the records unlinked
 * segments a process had just attached).
 */
class SweepRaceTest : FunSpec({
    test("two sweep loops racing 20,000 attaches never unlink a segment while it is attached") {
        val dir = scratchDir("race")
        val side = scratchDir("race-side")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath, "SHARED_ARRAYS_AUTO_SWEEP" to "0")
        val started = mutableListOf<ChildJvm>()
        try {
            // a creator that dies: its segment, copied in full, is the template of every segment of the race
            val victim = ChildJvm("hold", "1", "10", env = env).also { started += it }
            val name = (ArrayHandle.parse(victim.expectLine("HANDLE ")) as ArrayHandle.Shm).name()
            victim.kill()
            val template = File(side, "template").apply { writeBytes(File(dir, name).readBytes()) }
            File(dir, name).delete()
            val staging = File(side, "staging").apply { mkdirs() }

            // a short pause between sweeps, so that attaches get through between them as well as fail
            val sweepers = (1..2).map { ChildJvm("sweep-loop", "60", "300", env = env).also { c -> started += c } }
            val attacher = ChildJvm("attach-race", template.path, staging.path, "20000", "8", env = env).also { started += it }
            val (attaches, notFound, violations) = attacher.expectLine("RACE ", timeoutSeconds = 120).split(" ").map { it.toInt() }
            println("attach race: $attaches attaches, $notFound found swept, $violations unlinked while attached")
            attaches shouldBeGreaterThanOrEqual 20000
            violations shouldBe 0
            // the sweeps did remove the segments between attaches: the race was real
            notFound shouldBeGreaterThan 100
            sweepers.forEach { it.process.isAlive shouldBe true }
        } finally {
            started.forEach { it.close() }
            dir.deleteRecursively()
            side.deleteRecursively()
        }
    }
})
