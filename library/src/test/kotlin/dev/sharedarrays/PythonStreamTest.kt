package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.PythonPeer
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeSortedWith
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * Pools, queues and barriers shared by JVM and Python processes (python/tests/peers/stream_peer.py):
 * slots move between the languages without copies, views travel as handle and geometry, parties of
 * one barrier run in both, and a Python process killed mid-send, holding the queue's mutex or a
 * slot is repaired by the JVM's side of the protocol.
 */
class PythonStreamTest : FunSpec({
    val shm = CreateOptions.defaults().backend(Backend.SHM)
    val s30 = Duration.ofSeconds(30)
    val pool = Executors.newCachedThreadPool { r -> Thread(r).apply { isDaemon = true } }
    afterSpec { pool.shutdownNow() }

    test("a JVM producer, two Python consumers that double each slot in place and send it on, back to the JVM") {
        val n = 300
        val width = 16L
        ArrayPool.create(I64.TYPE, 8, longArrayOf(width), shm).use { slots ->
            ArrayQueue.create(4, shm).use { toPython ->
                ArrayQueue.create(4, shm).use { back ->
                    val pys = List(2) { PythonPeer("double", toPython.handle().toString(), back.handle().toString()) }
                    try {
                        val received = pool.submit<List<Long>> {
                            val got = ArrayList<Long>()
                            while (true) {
                                val a = back.receive(I64.TYPE, s30) ?: break
                                val k = a.getLong(0) / 2000
                                for (i in 0 until width) a.getLong(i) shouldBe 2 * (k * 1000 + i)
                                got += k
                                a.close()
                            }
                            got
                        }
                        for (k in 0 until n) {
                            val s = slots.acquire(s30)
                            for (i in 0 until width) s.setLong(i, k * 1000L + i)
                            toPython.send(s, s30)
                        }
                        toPython.end()
                        val counts = pys.map { it.expectLine("END ").toInt() }
                        counts.sum() shouldBe n
                        counts.forEach { it shouldBeGreaterThan 0 }
                        pys.forEach { it.waitForExit() shouldBe 0 }
                        back.end()
                        received.get(60, TimeUnit.SECONDS).sorted() shouldBe (0L until n).toList()
                        slots.free() shouldBe 8
                        toPython.dropped() shouldBe 0
                        back.dropped() shouldBe 0
                    } finally {
                        pys.forEach { it.close() }
                    }
                }
            }
        }
    }

    test("a Python producer of pool slots and array views, a JVM consumer") {
        val n = 60
        ArrayQueue.create(4, shm).use { q ->
            PythonPeer("produce-mixed", q.handle().toString(), n.toString()).use { py ->
                val poolHandle = py.expectLine("POOL ")
                ArrayPool.attach(ArrayHandle.parse(poolHandle), I64.TYPE).use { pyPool ->
                    var k = 0
                    while (true) {
                        val a = q.receive(I64.TYPE, s30) ?: break
                        a.shape().toList() shouldBe listOf(8L)
                        if (k % 3 == 2) {
                            a.handle().toString() shouldContain "shm://"
                            val r = (k % 4).toLong()
                            for (j in 0 until 8L) a.getLong(j) shouldBe r * 1000 + 7 - j
                        } else {
                            a.handle() shouldBe pyPool.handle()
                            for (j in 0 until 8L) a.getLong(j) shouldBe 1_000_000L + k
                        }
                        a.close()
                        k++
                    }
                    k shouldBe n
                    py.expectLine("DONE")
                    pyPool.free() shouldBe 4
                    py.send("close")
                    py.expectLine("CLOSED")
                }
                py.waitForExit() shouldBe 0
            }
        }
    }

    test("a queue and a barrier Python created: the JVM attaches, sends to it and meets at it") {
        PythonPeer("own-queue-barrier").use { py ->
            val qh = py.expectLine("QUEUE ")
            val bh = py.expectLine("BARRIER ")
            SharedArrays.create(I32.TYPE, longArrayOf(3, 4), shm).use { a ->
                for (i in 0 until 12L) a.setLong(i, i)
                ArrayQueue.attach(qh).use { q ->
                    SharedBarrier.attach(bh).use { bar ->
                        bar.parties() shouldBe 2
                        q.capacity() shouldBe 4
                        q.send(a.select(0, 2), s30) // row 2: 8 + 9 + 10 + 11
                        py.expectLine("GOT ") shouldBe "38"
                        bar.await(s30)
                        py.expectLine("TRIP")
                        py.send("close")
                        py.expectLine("CLOSED")
                        // the creator's close of an OWNER queue ended it
                        q.isEnded() shouldBe true
                    }
                }
            }
            py.waitForExit() shouldBe 0
        }
    }

    test("a barrier of two JVM and two Python parties trips; a killed party breaks it in both languages") {
        val trips = 10
        SharedBarrier.create(4, shm).use { bar ->
            bar.register()
            val h = bar.handle().toString()
            ChildJvm("stream-barrier", h, trips.toString(), "30").use { jvm ->
                val pys = List(2) { PythonPeer("barrier", h, trips.toString(), "30") }
                try {
                    jvm.expectLine("REGISTERED")
                    pys.forEach { it.expectLine("REGISTERED") }
                    repeat(trips) { bar.await(s30) }
                    for (i in 0 until trips) {
                        jvm.expectLine("TRIP ") shouldBe "$i"
                        pys.forEach { it.expectLine("TRIP ") shouldBe "$i" }
                    }
                    val (victim, other) = pys
                    Thread.sleep(200) // the others wait in the next generation (the victim's arrival counted: the
                    // JVM's own arrival would trip it, so this party stays away until the break)
                    victim.kill()
                    // the waiting parties see the dead one within a slice and break the barrier
                    jvm.expectLine("BROKEN ") shouldBe "PARTY_DIED ${victim.pid}"
                    other.expectLine("BROKEN ") shouldBe "PARTY_DIED ${victim.pid}"
                    val e = shouldThrow<BarrierBrokenException> { bar.await(s30) }
                    e.reason() shouldBe BarrierBrokenException.Reason.PARTY_DIED
                    e.pid() shouldBe victim.pid
                    other.waitForExit() shouldBe 0
                    jvm.process.waitFor(30, TimeUnit.SECONDS) shouldBe true
                } finally {
                    pys.forEach { it.close() }
                }
            }
        }
    }

    test("Python senders killed mid-send: the JVM consumer goes on, nothing twice, every slot comes back") {
        ArrayPool.create(I64.TYPE, 4, longArrayOf(4), shm).use { slots ->
            val rng = Random(42)
            repeat(3) { round ->
                ArrayQueue.create(4, shm).use { q ->
                    PythonPeer("send-loop", slots.handle().toString(), q.handle().toString()).use { py ->
                        val consumer = pool.submit<List<Long>> {
                            val got = ArrayList<Long>()
                            try {
                                while (true) {
                                    val a = q.receive(I64.TYPE, s30) ?: break
                                    got += a.getLong(0)
                                    a.close()
                                }
                            } catch (e: QueueAbandonedException) {
                                e.pids() shouldBe listOf(py.pid)
                            }
                            got
                        }
                        py.expectLine("SENT ")
                        Thread.sleep(rng.nextLong(1, 300))
                        py.kill()
                        val got = consumer.get(30, TimeUnit.SECONDS)
                        got.size shouldBeGreaterThan 0
                        // each k at most once, in the sender's order; a message dropped mid-send is lost, never doubled
                        got.zipWithNext().forEach { (a, b) -> a shouldBeLessThan b }
                        slots.free() shouldBe 4
                        println("round $round: ${got.size} messages, last ${got.last()}, dropped ${q.dropped()}")
                    }
                }
            }
        }
    }

    test("a Python process killed while holding a queue's mutex or a slot: the JVM times out naming it, then takes over") {
        ArrayPool.create(I64.TYPE, 2, longArrayOf(4), shm).use { slots ->
            ArrayQueue.create(4, shm).use { q ->
                PythonPeer("hold-mutex", q.handle().toString()).use { py ->
                    py.expectLine("HOLDING")
                    val s = slots.acquire(s30)
                    val t0 = System.nanoTime()
                    q.trySend(s) shouldBe false
                    (System.nanoTime() - t0) shouldBeLessThan 50_000_000L
                    val e = shouldThrow<WaitTimeoutException> { q.send(s, Duration.ofMillis(200)) }
                    e.message!! shouldContain "pid ${py.pid}"
                    py.kill()
                    q.send(s, s30)
                    q.size() shouldBe 1
                }
                PythonPeer("hold-slot", slots.handle().toString()).use { py ->
                    py.expectLine("HOLDING ")
                    slots.free() shouldBe 0 // one in the queue, one held by Python
                    py.kill()
                    slots.free() shouldBe 1
                }
                PythonPeer("consume", q.handle().toString(), "hold").use { py ->
                    py.expectLine("GOT ")
                    py.expectLine("HOLDING")
                    slots.free() shouldBe 1
                    py.kill()
                    slots.free() shouldBe 2
                }
            }
        }
    }
})
