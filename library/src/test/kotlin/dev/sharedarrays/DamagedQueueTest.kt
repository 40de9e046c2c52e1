package dev.sharedarrays

import dev.sharedarrays.internal.sync.QueueDescriptor
import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.nio.file.Files
import java.time.Duration

/**
 * A queue whose head and tail words another process damaged (tail more than capacity past head,
 * or a pair whose signed difference overflows): every call that reads them refuses at once, and
 * what removes a queue (sweep, the command line's sweep and rm, the last close) removes it in well
 * under a second instead of looping from head to tail.
 *
 * This JVM and its children use a shm directory of their own, as in [QueueRecoveryTest].
 */
class DamagedQueueTest : FunSpec({
    val dir = scratchDir("damaged-queue")
    val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
    val shmDirectory = Class.forName("dev.sharedarrays.internal.backend.ShmBackend").getDeclaredField("directory")
        .apply { isAccessible = true }
    var saved: Any? = null
    beforeSpec {
        saved = shmDirectory.get(null)
        shmDirectory.set(null, dir.toPath())
    }
    afterSpec { shmDirectory.set(null, saved) }
    afterTest { dir.list()!!.toList() shouldBe emptyList() }

    /** Writes head and tail into the queue's words, through an I64 view of its data. */
    fun damage(queue: String, head: Long, tail: Long) {
        SharedArrays.attach(ArrayHandle.parse(queue), I64.TYPE).use { w ->
            w.setLong(QueueDescriptor.HEAD_OFFSET / 8, head)
            w.setLong(QueueDescriptor.TAIL_OFFSET / 8, tail)
        }
    }

    fun millis(block: () -> Unit): Long {
        val t0 = System.nanoTime()
        block()
        return (System.nanoTime() - t0) / 1_000_000
    }

    val pairs = listOf(
        "tail more than capacity past head" to (7L to 7L + 3 + 1_000_000_000L),
        "a signed difference that overflows" to (Long.MIN_VALUE + 5 to Long.MAX_VALUE),
    )

    for ((what, words) in pairs) {
        val (head, tail) = words
        test("$what: receive(300 ms) and send refuse at once, the creator's last close returns at once") {
            val q = ArrayQueue.create(3, CreateOptions.defaults().backend(Backend.SHM).lifetime(Lifetime.SHARED))
            val path = SharedArrays.inspect(q.handle()).path()
            ArrayPool.create(F64.TYPE, 2, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM)).use { pool ->
                q.send(pool.acquire(Duration.ofSeconds(1)), Duration.ofSeconds(1))
                damage(q.handle().toString(), head, tail)
                pool.acquire(Duration.ofSeconds(1)).use { unsent ->
                    millis {
                        shouldThrow<InvalidSegmentException> { q.receive(Duration.ofMillis(300)) }.message shouldContain
                            "is damaged: head $head and tail $tail for a capacity of 3"
                        shouldThrow<InvalidSegmentException> { q.send(unsent, Duration.ofMillis(300)) }
                    } shouldBeLessThan 250L
                }
                q.size() shouldBe 0L
                millis { q.close() } shouldBeLessThan 500L
                Files.exists(path) shouldBe false // SHARED: the last close removed it
                pool.free() shouldBe 2 // the last close gave back the slot in flight, found in its cell
            }
        }

        test("$what, its processes killed: sweep, the command line's sweep and rm each remove it in well under a second") {
            ArrayPool.create(F64.TYPE, 8, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM)).use { pool ->
                for (remover in listOf("SharedArrays.sweep", "sharedarrays sweep", "sharedarrays rm")) {
                    val child = ChildJvm("slot-fill", "new", pool.handle().toString(), "3", env = env)
                    val q = try {
                        child.expectLine("QUEUE").also { child.expectLine("SENT") }
                    } finally {
                        child.kill()
                        child.close()
                    }
                    val path = SharedArrays.inspect(ArrayHandle.parse(q)).path()
                    damage(q, head, tail)
                    val out = ByteArrayOutputStream()
                    var status = 0
                    val ms = millis {
                        status = when (remover) {
                            "SharedArrays.sweep" -> SharedArrays.sweep(false).size - 1
                            "sharedarrays sweep" -> dev.sharedarrays.cli.Cli.run(arrayOf("sweep"), PrintStream(out), PrintStream(out))
                            else -> dev.sharedarrays.cli.Cli.run(arrayOf("rm", q), PrintStream(out), PrintStream(out))
                        }
                    }
                    println("$remover of a damaged dead queue ($what): $ms ms; ${out.toString().trim()}")
                    status shouldBe 0
                    ms shouldBeLessThan 1000L
                    Files.exists(path) shouldBe false
                    pool.free() shouldBe 8 // its 3 slots in flight went back: the cells were read, not head to tail
                }
                pool.free() shouldBe 8 // the slots in flight in each removed queue went back
            }
        }
    }
})
