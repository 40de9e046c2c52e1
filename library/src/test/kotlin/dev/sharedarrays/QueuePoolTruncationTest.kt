package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.QueuePoolLoop
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldBeIn
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import java.io.RandomAccessFile
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.concurrent.thread

/**
 * The shm files of a queue and a pool shrunk (to 0 and to half) and restored, again and again,
 * while a child JVM and this one use them: every public method throws only what it documents
 * (SegmentTruncatedException for the fault), never an InternalError, and no JVM crashes; close
 * works on a truncated file. Both JVMs warm up first: an atomic operation the JIT has not
 * compiled yet cannot be recovered from (SegmentTruncatedException documents it).
 */
class QueuePoolTruncationTest : FunSpec({
    /** What the methods of the loop document, besides OK. */
    val documented = listOf("SegmentTruncatedException", "WaitTimeoutException", "IllegalStateException",
        "InvalidSegmentException", "SegmentNotFoundException", "QueueAbandonedException")

    fun outcomes(line: String): Map<String, Long> =
        line.split(" ").filter { it.isNotEmpty() }.associate { it.substringBeforeLast(":") to it.substringAfterLast(":").toLong() }

    fun checkDocumented(who: String, outcomes: Map<String, Long>) = withClue("$who: $outcomes") {
        for (key in outcomes.keys) {
            key.substringBefore("=") shouldBeIn QUEUE_POOL_OPS
            key.substringAfter("=") shouldBeIn documented + "OK"
        }
        outcomes.filterKeys { it.endsWith("=SegmentTruncatedException") }.values.sum() shouldBeGreaterThan 0L
        outcomes.filterKeys { it.endsWith("=OK") }.values.sum() shouldBeGreaterThan 0L
    }

    test("queue and pool files truncated to 0 and to half and restored under two JVMs: only documented exceptions, no crash") {
        val shm = CreateOptions.defaults().backend(Backend.SHM)
        val errors = scratchDir("hs-err")
        ArrayQueue.create(16, shm).use { queue ->
            ArrayPool.create(I64.TYPE, 8, longArrayOf(64), shm).use { pool ->
                val files = listOf(SharedArrays.attach(queue.handle()).use { it.path().get().toFile() }, pool.path().get().toFile())
                val originals = files.map { it.readBytes() }
                fun truncate(f: Int, size: Long) = RandomAccessFile(files[f], "rw").use { it.setLength(size) }
                fun restore(f: Int) = RandomAccessFile(files[f], "rw").use { it.write(originals[f]) }

                ChildJvm("qp-loop", queue.handle().toString(), pool.handle().toString(), "20000", fullJit = true,
                    jvmArgs = listOf("-XX:ErrorFile=${errors.path}/hs_err_%p.log")).use { child ->
                    val mine = QueuePoolLoop(queue, pool)
                    repeat(20_000) { mine.round() } // C2 compiles this JVM's accesses too
                    child.expectLine("WARM", 120)
                    mine.outcomes.clear()
                    val stop = AtomicBoolean()
                    val user = thread(name = "queue-pool-user") { while (!stop.get()) mine.round() }
                    child.send("go")
                    try {
                        repeat(2) {
                            for (f in listOf(listOf(0), listOf(1), listOf(0, 1))) {
                                for (half in listOf(false, true)) {
                                    f.forEach { truncate(it, if (half) originals[it].size / 2L else 0L) }
                                    Thread.sleep(120)
                                    f.forEach { restore(it) }
                                    Thread.sleep(120)
                                }
                            }
                        }
                    } finally {
                        stop.set(true)
                        user.join()
                    }
                    child.send("stop")
                    val theirs = outcomes(child.expectLine("OUTCOMES ", 60))
                    println("queue/pool truncation: child ${child.expectLine("RATE ")} rounds/s: $theirs")
                    println("queue/pool truncation: this JVM: ${mine.outcomes}")
                    checkDocumented("child", theirs)
                    checkDocumented("this JVM", mine.outcomes)

                    // restored: both work again
                    pool.acquire(Duration.ofSeconds(5)).use { s -> queue.send(s, Duration.ofSeconds(5)) }
                    queue.receive(Duration.ofSeconds(5))!!.close()

                    // close on truncated files: no exception, in either JVM
                    truncate(0, 0)
                    truncate(1, 0)
                    child.send("close")
                    child.expectLine("CLOSED", 60)
                    child.waitForExit() shouldBe 0
                    queue.close()
                    pool.close()
                }
                errors.listFiles()!!.toList().shouldBeEmpty()
            }
        }
    }
})

/** The operations [QueuePoolLoop] counts. */
private val QUEUE_POOL_OPS = listOf("tryAcquire", "setLong", "trySend", "slotClose", "receive", "receivedClose", "acquire",
    "acquiredClose", "size", "isEnded", "dropped", "free", "queueToString", "poolToString", "acquireAsync", "sendAsync",
    "receiveAsync")
