package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeSortedWith
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import java.io.DataInputStream
import java.io.EOFException
import java.io.File
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong
import kotlin.concurrent.thread
import kotlin.random.Random

/** ArrayQueue and ArrayPool across real child JVMs: exactly-once delivery, order, crashes. */
class QueueCrossProcessTest : FunSpec({

    test("3 producer JVMs, 2 consumer JVMs, 100,000 messages (pool slots and random views): each received once, in each producer's order, every slot back") {
        val counts = listOf(33_333, 33_333, 33_334)
        val dir = scratchDir("queue-once")
        ArrayQueue.create(64).use { q ->
            ArrayPool.create(F64.TYPE, 16, 8L).use { pool ->
                val files = List(2) { File(dir, "consumer-$it") }
                val consumers = files.map { ChildJvm("q-consume", q.handle().toString(), it.path, fullJit = true) }
                val producers = counts.mapIndexed { p, n ->
                    ChildJvm("q-produce", q.handle().toString(), pool.handle().toString(), p.toString(), n.toString(), "11", fullJit = true)
                }
                try {
                    producers.forEach { it.expectLine("DONE", 300) }
                    q.end()
                    consumers.map { it.expectLine("COUNT", 300).toInt() }.sum() shouldBe 100_000
                    consumers.forEach { it.waitForExit() shouldBe 0 }
                    producers.forEach { it.send("exit"); it.waitForExit() shouldBe 0 }
                } finally {
                    (consumers + producers).forEach { it.close() }
                }
                val received = files.map { readLongs(it) }
                val all = received.flatten()
                all.size shouldBe 100_000
                all.toSet().size shouldBe 100_000 // none twice
                all.toSet() shouldBe counts.flatMapIndexed { p, n -> (0 until n).map { (p.toLong() shl 32) or it.toLong() } }.toSet()
                for (codes in received) {
                    for (p in 0..2) {
                        // each consumer sees each producer's messages in the order they were sent
                        codes.filter { it ushr 32 == p.toLong() }.map { it and 0xFFFFFFFFL } shouldBeSortedWith compareBy { it }
                    }
                }
                pool.free() shouldBe 16
                q.size() shouldBe 0L
                q.dropped() shouldBe 0L
            }
        }
    }

    test("every producer SIGKILLed: a receiver blocked on the empty queue gets QueueAbandonedException within 1 s") {
        ArrayQueue.create(8).use { q ->
            val producers = List(2) { ChildJvm("q-send-hold", q.handle().toString()) }
            try {
                producers.forEach { it.expectLine("SENT") }
                q.receive(Duration.ofSeconds(5))!!.close()
                q.receive(Duration.ofSeconds(5))!!.close()
                val failed = AtomicLong()
                var error: Throwable? = null
                val waiter = thread {
                    error = runCatching { q.receive(Duration.ofSeconds(30)) }.exceptionOrNull()
                    failed.set(System.nanoTime())
                }
                Thread.sleep(200) // blocked, asleep on the futex
                val pids = producers.map { it.pid }
                producers.forEach { it.kill() }
                val killed = System.nanoTime()
                waiter.join(10_000)
                val ms = (failed.get() - killed) / 1_000_000
                println("blocked receiver saw every producer dead after $ms ms: ${error?.message}")
                val e = error as QueueAbandonedException
                e.pids().sorted() shouldBe pids.sorted()
                ms shouldBeLessThan 1000L
            } finally {
                producers.forEach { it.close() }
            }
        }
    }

    test("a consumer SIGKILLed while it holds a received slot: the slot is free again within 1 s") {
        ArrayQueue.create(8).use { q ->
            ArrayPool.create(F64.TYPE, 2, 4L).use { pool ->
                ChildJvm("q-hold", q.handle().toString()).use { child ->
                    q.send(pool.acquire(Duration.ofSeconds(1)), Duration.ofSeconds(1))
                    child.expectLine("HOLDING")
                    pool.free() shouldBe 1
                    child.kill()
                    val t0 = System.nanoTime()
                    while (pool.free() != 2 && System.nanoTime() - t0 < 5_000_000_000L) Thread.sleep(5)
                    val ms = (System.nanoTime() - t0) / 1_000_000
                    println("slot of a killed consumer free after $ms ms")
                    pool.free() shouldBe 2
                    ms shouldBeLessThan 1000L
                }
            }
        }
    }

    test("producers SIGKILLed at random points of send, 100 times: no message twice, no slot lost for good, the queue keeps working") {
        ArrayQueue.create(4).use { q ->
            ArrayPool.create(F64.TYPE, 6, 2L).use { pool ->
                val stop = AtomicBoolean()
                val seen = HashMap<Long, Long>() // pid -> last seq received
                val duplicates = AtomicLong()
                var received = 0L
                val consumer = thread {
                    while (!stop.get()) {
                        val a = try {
                            q.receive(F64.TYPE, Duration.ofMillis(100))
                        } catch (e: WaitTimeoutException) {
                            continue
                        } catch (e: QueueAbandonedException) {
                            continue // between two rounds every producer may be dead
                        } ?: break
                        val pid = a.getDouble(0).toLong()
                        val seq = a.getDouble(1).toLong()
                        synchronized(seen) {
                            if (seq <= (seen[pid] ?: -1L)) duplicates.incrementAndGet()
                            seen[pid] = seq
                            received++
                        }
                        a.close()
                    }
                }
                val rng = Random(5)
                var kills = 0
                try {
                    while (kills < 100) {
                        val round = List(4) { ChildJvm("q-spam", q.handle().toString(), pool.handle().toString()) }
                        try {
                            round.forEach { it.expectLine("SPAMMING") }
                            for (c in round) {
                                Thread.sleep(rng.nextLong(1, 30))
                                c.kill()
                                kills++
                            }
                        } finally {
                            round.forEach { it.close() }
                        }
                    }
                    // the queue still works, and every slot comes back once the dead owners are reclaimed
                    val s = pool.acquire(Duration.ofSeconds(5))
                    s.setDouble(0, -1.0)
                    s.setDouble(1, 0.0)
                    q.send(s, Duration.ofSeconds(5))
                    val deadline = System.nanoTime() + 10_000_000_000L
                    while ((q.size() > 0 || pool.free() != 6) && System.nanoTime() < deadline) Thread.sleep(10)
                } finally {
                    stop.set(true)
                    consumer.join(10_000)
                }
                println("100 producers killed mid-stream: $received messages received, ${q.dropped()} dropped, ${pool.free()} of 6 slots free")
                duplicates.get() shouldBe 0L
                synchronized(seen) { seen[-1L] } shouldBe 0L // the message sent after the kills arrived
                q.size() shouldBe 0L
                pool.free() shouldBe 6
            }
        }
    }

    test("awaitChange across two JVMs: each of 200 signals wakes the waiter with the new count") {
        SharedArrays.create(F64.TYPE, 4L).use { a ->
            ChildJvm("change-wait", a.handle().toString(), "200", fullJit = true).use { child ->
                var count = child.expectLine("WAITING").toLong()
                repeat(200) {
                    count = a.signalChange()
                    val woke = child.expectLine("WOKE").split(" ")
                    woke[0].toLong() shouldBe count
                }
                child.waitForExit() shouldBe 0
            }
        }
    }
})

private fun readLongs(f: File): List<Long> {
    val out = ArrayList<Long>()
    DataInputStream(f.inputStream().buffered()).use { input ->
        while (true) {
            try {
                out.add(input.readLong())
            } catch (e: EOFException) {
                break
            }
        }
    }
    return out
}
