package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.types.shouldBeInstanceOf
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import kotlin.concurrent.thread

/**
 * Queues whose processes are gone, across real child JVMs: the pool slots in flight in a queue
 * whose processes were all killed come back (by sweep, or by an acquire that finds none free),
 * and a producer that exits normally without close() has left, not died.
 *
 * This JVM and its children use a shm directory of their own: other processes of this user sweep
 * /dev/shm too, and one that removed a dead queue of these tests first (with a version that does
 * not give slots back) would make them fail for a reason that is not theirs.
 */
class QueueRecoveryTest : FunSpec({
    val dir = scratchDir("queue-recovery")
    val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
    // the shm directory is read from the environment once per process; this process's is set here
    val shmDirectory = Class.forName("dev.sharedarrays.internal.backend.ShmBackend").getDeclaredField("directory")
        .apply { isAccessible = true }
    var saved: Any? = null
    beforeSpec {
        saved = shmDirectory.get(null)
        shmDirectory.set(null, dir.toPath())
    }
    afterSpec { shmDirectory.set(null, saved) }
    afterTest { dir.list()!!.toList() shouldBe emptyList() }

    fun child(vararg args: String) = ChildJvm(*args, env = env)

    fun shmPool(slots: Int) = ArrayPool.create(F64.TYPE, slots, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM))

    fun queuePath(handle: String): Path = SharedArrays.inspect(ArrayHandle.parse(handle)).path()

    fun waitUntil(seconds: Long, done: () -> Boolean) {
        val deadline = System.nanoTime() + seconds * 1_000_000_000L
        while (!done() && System.nanoTime() < deadline) Thread.sleep(10)
    }

    test("every process of a queue SIGKILLed with pool slots in flight: sweep (and rm) removes it and frees exactly its slots") {
        shmPool(8).use { pool ->
            val children = mutableListOf<ChildJvm>()
            try {
                val creator = child("slot-fill", "new", pool.handle().toString(), "3").also { children += it }
                val q = creator.expectLine("QUEUE")
                creator.expectLine("SENT")
                val sender = child("slot-fill", q, pool.handle().toString(), "2").also { children += it }
                sender.expectLine("SENT")
                val consumer = child("q-hold", q).also { children += it } // receives one slot and holds it
                consumer.expectLine("HOLDING")
                // another queue, whose process stays alive: its slot must stay in flight
                val live = child("slot-fill", "new", pool.handle().toString(), "1").also { children += it }
                val liveQueue = live.expectLine("QUEUE")
                live.expectLine("SENT")
                pool.free() shouldBe 2
                val path = queuePath(q)
                listOf(creator, sender, consumer).forEach { it.kill() }

                SharedArrays.sweep(false)
                Files.exists(path) shouldBe false
                pool.free() shouldBe 7 // 4 in flight in the dead queue, 1 held by the dead consumer; 1 still in the live queue
                SharedArrays.sweep(false)
                pool.free() shouldBe 7 // nothing freed twice, nothing taken from the live queue

                // rm (without --force) of a queue no process holds gives its slots back too
                live.kill()
                SharedArrays.remove(ArrayHandle.parse(liveQueue), false)
                pool.free() shouldBe 8
                val all = List(8) { pool.acquire(Duration.ofSeconds(1)) }
                pool.free() shouldBe 0
                all.forEach { it.close() }
                pool.free() shouldBe 8
            } finally {
                children.forEach { it.close() }
            }
        }
    }

    test("an acquire on a pool whose slots are all in flight in a dead queue gets one back without a sweep call") {
        shmPool(3).use { pool ->
            val children = mutableListOf<ChildJvm>()
            try {
                val creator = child("slot-fill", "new", pool.handle().toString(), "2").also { children += it }
                val q = creator.expectLine("QUEUE")
                creator.expectLine("SENT")
                val sender = child("slot-fill", q, pool.handle().toString(), "1").also { children += it }
                sender.expectLine("SENT")
                pool.free() shouldBe 0
                val path = queuePath(q)
                children.forEach { it.kill() }

                val t0 = System.nanoTime()
                val s = pool.acquire(Duration.ofSeconds(10))
                val ms = (System.nanoTime() - t0) / 1_000_000
                println("acquire on a pool exhausted by a dead queue got a slot after $ms ms")
                ms shouldBeLessThan 5000L
                s.close()
                waitUntil(5) { pool.free() == 3 && !Files.exists(path) }
                Files.exists(path) shouldBe false
                pool.free() shouldBe 3
                val all = List(3) { pool.acquire(Duration.ofSeconds(1)) }
                pool.tryAcquire().shouldBeNull()
                all.forEach { it.close() }
            } finally {
                children.forEach { it.close() }
            }
        }
    }

    for (dropped in listOf(false, true)) {
        val how = if (dropped) "and its queue object unreachable and collected" else "with its queue object still reachable"
        test("a producer that returns from main without close(), $how: its consumer gets every message, then waits, never 'died'") {
            ArrayQueue.create(16, CreateOptions.defaults().backend(Backend.SHM)).use { q ->
                shmPool(4).use { pool ->
                    val args = listOf("slot-exit", q.handle().toString(), pool.handle().toString(), "3") + if (dropped) listOf("drop") else emptyList()
                    child(*args.toTypedArray()).use { child ->
                        child.expectLine("SENT") shouldBe if (dropped) "collected=true" else ""
                        repeat(3) { k -> q.receive(F64.TYPE, Duration.ofSeconds(5))!!.use { it.getDouble(1) shouldBe k.toDouble() } }
                        var error: Throwable? = null
                        val waiter = thread { error = runCatching { q.receive(Duration.ofMillis(1500)) }.exceptionOrNull() }
                        Thread.sleep(200) // blocked on the empty queue
                        child.send("exit")
                        child.waitForExit() shouldBe 0
                        waiter.join(10_000)
                        println("consumer of a producer that exited without close ($how): ${error?.javaClass?.simpleName}: ${error?.message}")
                        error.shouldBeInstanceOf<WaitTimeoutException>() // the producer left; the queue is not ended
                        q.isEnded() shouldBe false
                        pool.free() shouldBe 4
                    }
                }
            }
        }
    }

    test("a producer that created the queue and returns from main without close(): its exit ends the queue, the consumer gets null after draining") {
        shmPool(4).use { pool ->
            child("slot-exit", "new", pool.handle().toString(), "3").use { child ->
                ArrayQueue.attach(child.expectLine("QUEUE")).use { q ->
                    child.send("go")
                    child.expectLine("SENT")
                    repeat(3) { k -> q.receive(F64.TYPE, Duration.ofSeconds(5))!!.use { it.getDouble(1) shouldBe k.toDouble() } }
                    var result: Result<SharedNDArray<*>?>? = null
                    var ended = 0L
                    val waiter = thread {
                        result = runCatching { q.receive(Duration.ofSeconds(10)) }
                        ended = System.nanoTime()
                    }
                    Thread.sleep(200) // blocked on the empty queue
                    child.send("exit")
                    child.waitForExit() shouldBe 0
                    val exited = System.nanoTime()
                    waiter.join(15_000)
                    println("blocked consumer got ${result} ${(ended - exited) / 1_000_000} ms after its producer (the creator) exited")
                    result!!.getOrThrow().shouldBeNull()
                    q.isEnded() shouldBe true
                    (ended - exited) / 1_000_000 shouldBeLessThan 2000L
                }
                pool.free() shouldBe 4
            }
        }
    }
})
