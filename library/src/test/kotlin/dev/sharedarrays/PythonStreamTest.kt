package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.PythonPeer
import dev.sharedarrays.testing.Stopping
import io.kotest.assertions.withClue
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeSortedWith
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeGreaterThanOrEqual
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldNotContain
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * Pools, queues and barriers shared by JVM and Python processes (python/tests/peers/stream_peer.py):
 * slots move between the languages without copies, views travel as handle and geometry, parties of
 * one barrier run in both, and a Python process killed mid-send, holding the queue's mutex or a
 * slot is repaired by the JVM's side of the protocol; and the other way round, a JVM killed holding
 * pool slots, mid-send or holding the queue's mutex is repaired by Python's side.
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
                        // both consumers at the queue before the first message: else the first started may take all 300
                        pys.forEach { it.expectLine("ATTACHED") }
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
    test("a JVM killed holding every slot of a pool (the test JVM's or a Python peer's): a waiting Python acquire(5 s) gets one") {
        fun holdKillAcquire(poolHandle: String, py: PythonPeer) {
            py.expectLine("READY")
            ChildJvm("pool-hold", poolHandle, "2").use { jvm ->
                jvm.expectLine("HOLDING")
                py.send("go")
                py.expectLine("FREE ") shouldBe "0" // the holder lives: nothing to reclaim
                Thread.sleep(200) // Python waits in acquire
                jvm.kill()
            }
            val (index, ms) = py.expectLine("ACQUIRED ").split(" ").map { it.toLong() }
            println("Python's acquire(5 s) got slot $index of a killed JVM's after $ms ms")
            ms shouldBeGreaterThanOrEqual 150L
            ms shouldBeLessThan 3000L
            ArrayPool.attach(ArrayHandle.parse(poolHandle), F64.TYPE).use { p -> p.free() shouldBe 1 }
            py.send("close")
            py.expectLine("CLOSED")
            py.waitForExit() shouldBe 0
        }
        ArrayPool.create(F64.TYPE, 2, longArrayOf(4), shm).use { slots ->
            PythonPeer("acquire", slots.handle().toString(), "5").use { py -> holdKillAcquire(slots.handle().toString(), py) }
            slots.free() shouldBe 2
        }
        PythonPeer("acquire", "new", "5").use { py -> holdKillAcquire(py.expectLine("POOL "), py) }
    }

    test("a JVM sender killed at a random moment: the Python consumer got an increasing sequence, then QueueAbandonedError naming it; every slot comes back") {
        val seed = System.nanoTime()
        val rng = Random(seed)
        ArrayPool.create(I64.TYPE, 4, longArrayOf(4), shm).use { slots ->
            repeat(2) { round ->
                ArrayQueue.create(4, shm).use { q ->
                    PythonPeer("receive-increasing", q.handle().toString(), slots.handle().toString()).use { py ->
                        ChildJvm("stream-send-loop", slots.handle().toString(), q.handle().toString()).use { jvm ->
                            jvm.expectLine("SENT ")
                            val after = rng.nextLong(1, 300)
                            println("round $round (seed $seed): killing the JVM sender ${jvm.pid} after $after ms")
                            Thread.sleep(after)
                            jvm.kill()
                            val (pids, count, last) = py.expectLine("ABANDONED ", 30).split(" ")
                            println("  Python received $count, last $last")
                            py.output() shouldNotContain "DISORDER"
                            pids shouldBe "${jvm.pid}"
                            count.toInt() shouldBeGreaterThan 0
                            py.expectLine("FREE ") shouldBe "4"
                            py.waitForExit() shouldBe 0
                            slots.free() shouldBe 4
                        }
                    }
                }
            }
        }
    }

    test("a JVM caught holding a queue's mutex: stopped, Python's receive(0.2 s) times out in < 1 s naming it; killed, Python takes over") {
        ArrayQueue.create(4, shm).use { q ->
            ArrayPool.create(F64.TYPE, 8, longArrayOf(4), shm).use { slots ->
                SharedArrays.attach(q.handle()).use { any ->
                    val words = any.`as`(I64.TYPE)
                    PythonPeer("queue-ops", q.handle().toString(), slots.handle().toString()).use { py ->
                        py.expectLine("READY")
                        ChildJvm("stop-churn", q.handle().toString(), slots.handle().toString(), "2").use { jvm ->
                            try {
                                jvm.expectLine("CHURNING")
                                val tries = Stopping.stopHoldingMutex(jvm.pid, words)
                                withClue("no SIGSTOP caught the child JVM holding the queue's mutex") { (tries > 0) shouldBe true }
                                py.send("receive 0.2")
                                val timeout = py.expectLine("TIMEOUT ")
                                val ms = timeout.substringBefore(' ').toLong()
                                println("queue mutex held by stopped JVM ${jvm.pid} (caught at try $tries): Python's receive(0.2 s) " +
                                    "timed out after $ms ms: ${timeout.substringAfter(' ')}")
                                ms shouldBeGreaterThanOrEqual 200L
                                ms shouldBeLessThan 1000L
                                timeout shouldContain "pid ${jvm.pid}, which is stopped"
                                (words.getVolatile(Stopping.MUTEX_WORD) and Stopping.PID_MASK) shouldBe jvm.pid

                                jvm.kill()
                                py.send("send 42")
                                val sendMs = py.expectLine("SENT ").toLong()
                                println("after SIGKILL: Python's send took the mutex over in $sendMs ms")
                                sendMs shouldBeLessThan 1000L
                                var got = false
                                while (!got) { // the dead JVM's messages come first
                                    py.send("receive 5")
                                    got = py.expectLine("GOT ").substringBefore(' ') == "42"
                                }
                                py.send("exit")
                                py.waitForExit() shouldBe 0
                                q.size() shouldBe 0L
                                words.getVolatile(Stopping.MUTEX_WORD) shouldBe 0L
                                slots.free() shouldBe 8
                            } finally {
                                Stopping.signal("CONT", jvm.pid)
                            }
                        }
                    }
                }
            }
        }
    }
})
