package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeIn
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.ints.shouldBeGreaterThanOrEqual
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldNotContain
import java.io.RandomAccessFile
import java.util.concurrent.TimeUnit

/**
 * A shm file shrunk under attached processes by another process of the same user: only the
 * documented exceptions, never an InternalError or a crash, whether the kernels are SIMD or
 * scalar and whether the element loops are compiled by C2.
 */
class TruncationTest : FunSpec({
    val bulk = setOf("sum", "addScalar", "fill", "addArray", "mulArray", "toLongArray", "copyFrom", "max", "lockWrite",
        "toString", "sort")

    fun results(line: String): Map<String, String> =
        line.split(" ").associate { it.substringBefore("=") to it.substringAfter("=") }

    for (vector in listOf(true, false)) {
        val kernels = if (vector) "SIMD kernels" else "scalar kernels"
        test("truncation between operations, $kernels, C2: each operation works after restore or throws SegmentTruncatedException") {
            SharedArrays.create(I64.TYPE, longArrayOf(1024), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
                val file = a.path().get().toFile()
                val jvmArgs = if (vector) listOf("--add-modules", "jdk.incubator.vector") else emptyList()
                ChildJvm("truncation-ops", a.handle().toString(), jvmArgs = jvmArgs, fullJit = true).use { child ->
                    child.expectLine("READY", 120)
                    val original = file.readBytes()
                    fun round(): Map<String, String> {
                        child.send("round")
                        return results(child.expectLine("RESULT "))
                    }
                    fun truncate(size: Long) = RandomAccessFile(file, "rw").use { it.setLength(size) }
                    fun restore() = RandomAccessFile(file, "rw").use { it.write(original) }

                    round().values.toSet() shouldBe setOf("OK")
                    for (size in listOf(4096L, 0L, original.size - 4096L)) {
                        truncate(size)
                        val r = round()
                        withClue("truncated to $size: $r") {
                            for ((op, outcome) in r) {
                                // element accesses inside the data that is left still work
                                if (op in bulk || size < 4096 + 8) {
                                    outcome shouldBe "SegmentTruncatedException"
                                } else {
                                    outcome shouldBeIn listOf("OK", "SegmentTruncatedException")
                                }
                            }
                        }
                        restore()
                        withClue("restored after $size") { round().values.toSet() shouldBe setOf("OK") }
                    }
                    truncate(4096)
                    child.send("close")
                    child.expectLine("CLOSED")
                    restore()
                    child.send("exit")
                    child.waitForExit() shouldBe 0
                }
            }
        }
    }

    test("truncation while SIMD kernels run (C2): SegmentTruncatedException, never a crash") {
        // sum and += over 16 MiB: a truncation mostly lands inside a vector loop, where it used to kill the JVM
        SharedArrays.create(I64.TYPE, longArrayOf(2_000_000), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            val file = a.path().get().toFile()
            val original = file.readBytes()
            val errors = scratchDir("simd-hs-err")
            ChildJvm("simd-loop", a.handle().toString(), "60", fullJit = true,
                jvmArgs = listOf("--add-modules", "jdk.incubator.vector", "-XX:ErrorFile=${errors.path}/hs_err_%p.log")).use { child ->
                child.expectLine("READY", 120)
                val random = java.util.Random(7)
                val how = (0 until 6).map { round ->
                    Thread.sleep(random.nextInt(40).toLong())
                    RandomAccessFile(file, "rw").use { it.setLength(if (round % 2 == 0) original.size / 2L else 0L) }
                    val seen = child.expectLine("TRUNC", 60)
                    RandomAccessFile(file, "rw").use { it.write(original) }
                    child.expectLine("BACK", 60)
                    seen
                }
                println("SIMD kernels truncated 6 times, found by: $how")
                child.send("exit")
                child.waitForExit() shouldBe 0
                child.output() shouldNotContain "UNEXPECTED"
            }
            errors.listFiles()!!.toList() shouldBe emptyList()
        }
    }

    test("a lock held and atomics run by interpreted code on a file truncated meanwhile: SegmentTruncatedException, never a crash") {
        // the interpreter's compare-and-set and get-and-add are not guarded against a fault: each atomic
        // loads its word first, and the load's fault is the exception
        SharedArrays.create(I64.TYPE, longArrayOf(1024), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            val file = a.path().get().toFile()
            val errors = scratchDir("xint-hs-err")
            ChildJvm("held-atomics", a.handle().toString(), jvmArgs = listOf("-Xint", "-XX:ErrorFile=${errors.path}/hs_err_%p.log")).use { child ->
                child.expectLine("HELD", 60)
                RandomAccessFile(file, "rw").use { it.setLength(0) }
                child.send("go")
                val outcomes = results(child.expectLine("ATOMICS ", 60))
                withClue(outcomes) {
                    outcomes.keys shouldBe setOf("unlock", "compareAndSet", "getAndAdd", "getAndSet", "signalChange", "lockRead")
                    outcomes.values.toSet() shouldBe setOf("SegmentTruncatedException")
                }
                child.waitForExit() shouldBe 0
            }
            errors.listFiles()!!.toList() shouldBe emptyList()
        }
    }

    test("attach against a truncate/restore loop (5,000+ cycles): only documented exceptions, never InternalError") {
        SharedArrays.create(F64.TYPE, longArrayOf(1000), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            for (i in 0 until 1000L) a.setDouble(i, i.toDouble())
            val file = a.path().get().toFile()
            val script = """
                import os, sys, time
                p = sys.argv[1]
                orig = open(p, 'rb').read()
                sizes = [0, 100, 4096, len(orig) - 4096, len(orig) - 8]
                fd = os.open(p, os.O_RDWR)
                print('LOOPING', flush=True)
                for n in range(6000):
                    os.ftruncate(fd, sizes[n % len(sizes)])
                    if n % 2:
                        time.sleep(0.00002)  # long enough for an attach to map the whole file, then fault
                    os.pwrite(fd, orig, 0)
                    if n % 3 == 0:
                        time.sleep(0.00002)
                print('CYCLES', n + 1, flush=True)
            """.trimIndent()
            // the attaching JVM warms attach up first: an interpreted compare-and-set that faults
            // kills the JVM (SegmentTruncatedException documents it), a compiled one is caught
            ChildJvm("attach-loop", a.handle().toString(), "3000", "5000", fullJit = true).use { child ->
                child.expectLine("WARM", 120)
                val py = ProcessBuilder("python3", "-c", script, file.path).redirectErrorStream(true).start()
                try {
                    val out = py.inputStream.bufferedReader()
                    out.readLine() shouldBe "LOOPING"
                    child.send("go")
                    val cycles = out.readLine().removePrefix("CYCLES ").trim().toInt()
                    child.send("stop")
                    val outcomes = results(child.expectLine("OUTCOMES ", 120)).mapValues { it.value.toInt() }
                    println("truncate/restore: $cycles cycles: $outcomes")
                    cycles shouldBe 6000
                    outcomes.keys.forEach { it shouldBeIn listOf("OK", "SegmentTruncatedException", "SegmentNotFoundException",
                        "InvalidSegmentException") }
                    outcomes.values.sum() shouldBeGreaterThanOrEqual 5000
                    outcomes.getOrDefault("OK", 0) shouldBeGreaterThan 0
                    outcomes.getOrDefault("InvalidSegmentException", 0) shouldBeGreaterThan 0
                    child.waitForExit() shouldBe 0
                } finally {
                    if (!py.waitFor(10, TimeUnit.SECONDS)) py.destroyForcibly().waitFor()
                }
            }
        }
    }
})
