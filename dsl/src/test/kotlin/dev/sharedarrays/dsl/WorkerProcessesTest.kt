package dev.sharedarrays.dsl

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.util.Collections
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.runBlocking

/** The process launcher with real worker JVMs. */
class WorkerProcessesTest : FunSpec({
    val main = WorkerMain::class.java.name

    test("3 worker JVMs get handles as arguments, run phases over a shared barrier, and exit 0; output is prefixed") {
        val lines = Collections.synchronizedList(ArrayList<String>())
        sharedArrays {
            val a = f64(3, 1000)
            val b = barrier(3)
            val workers = launchWorkers(3, main, args = { w -> listOf("phases", b.handle().toString(), a.handle().toString(), "$w") },
                output = { w, line -> lines += "[$w] $line" })
            runBlocking { workers.join(120.seconds) } shouldBe listOf(0, 0, 0)
            lines.filter { "TOTAL" in it } shouldContainExactlyInAnyOrder (0..2).map { "[$it] TOTAL ${1000.0 * (1 + 2 + 3)}" }
            a.sum() shouldBe 2 * 1000.0 * (1 + 2 + 3)
        }
    }

    test("a failing worker: join throws naming it and its status, the other workers are killed") {
        sharedArrays {
            val workers = launchWorkers(3, main, args = { w -> if (w == 1) listOf("exit", "3") else listOf("sleep") },
                output = { _, _ -> })
            val e = shouldThrow<WorkerFailedException> { runBlocking { workers.join(120.seconds) } }
            e.worker shouldBe 1
            e.exitCode shouldBe 3
            e.message shouldContain "worker 1 (pid ${workers.pids[1]}) exited with status 3; killed the other workers"
            e.message shouldContain "EXITING"
            (0 until 3).map { workers.isAlive(it) } shouldBe listOf(false, false, false)
        }
    }

    test("a parent scope that fails kills its workers") {
        lateinit var workers: WorkerProcesses
        shouldThrow<IllegalStateException> {
            sharedArrays {
                workers = launchWorkers(2, main, args = { listOf("sleep") }, output = { _, _ -> })
                error("parent failed")
            }
        }
        workers.pids.map { pid -> ProcessHandle.of(pid).map { it.isAlive }.orElse(false) } shouldBe listOf(false, false)
    }

    test("the worker command carries this JVM's flags, native access and classpath") {
        val cmd = WorkerProcesses.command("x.Main", listOf("-Xmx64m"))
        cmd.any { it.startsWith("--enable-native-access") } shouldBe true
        cmd.takeLast(4) shouldBe listOf("-Xmx64m", "-cp", System.getProperty("java.class.path"), "x.Main")
    }
})
