package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.time.Duration
import java.util.concurrent.TimeUnit

/** ArrayQueue in one process: slots move, views arrive, end drains, errors are clear. */
class QueueTest : FunSpec({
    val second = Duration.ofSeconds(1)

    test("a pool slot moves through the queue: the sender's array closes, the receiver's frees the slot") {
        ArrayQueue.create(4).use { q ->
            ArrayPool.create(F64.TYPE, 2, 3L).use { pool ->
                val s = pool.acquire(second)
                s.setDouble(2, 42.0)
                val row = s.slice(0, 0, 2, 1) // a view of the slot ends with it
                q.send(s, second)
                s.isClosed() shouldBe true
                shouldThrow<IllegalStateException> { s.getDouble(0) }
                s.close() // the slot is the queue's now: closing the sent array does not free it
                shouldThrow<IllegalStateException> { row.getDouble(0) }.message shouldContain "was given back or sent"
                pool.free() shouldBe 1
                q.size() shouldBe 1
                val r = q.receive(F64.TYPE, second)!!
                r.shape().toList() shouldBe listOf(3L)
                r.getDouble(2) shouldBe 42.0
                pool.free() shouldBe 1
                r.close()
                pool.free() shouldBe 2
            }
        }
    }

    test("a strided, transposed view of a shared array arrives as the same elements") {
        ArrayQueue.create(4).use { q ->
            SharedArrays.create(I32.TYPE, 4L, 6L).use { a ->
                for (i in 0L until 24) a.setLong(i, i * 10)
                val v = a.slice(1, 5, 0, -2).transpose()
                q.send(v, second)
                q.send(v, second)
                val r1 = q.receive(I32.TYPE, second)!!
                val r2 = q.receive(I32.TYPE, second)!!
                r1.shape().toList() shouldBe v.shape().toList()
                r1.strides().toList() shouldBe v.strides().toList()
                (0L until v.size()).map { r1.getLong(it) } shouldBe (0L until v.size()).map { v.getLong(it) }
                r1.setLong(0, -1)
                a.getLong(longArrayOf(0, 5)) shouldBe -1L // the same memory
                r2.id() shouldBe a.id()
            }
        }
    }

    test("end: later sends throw, receivers drain, then get null") {
        ArrayQueue.create(8).use { q ->
            SharedArrays.create(F64.TYPE, 3L).use { a ->
                q.send(a, second)
                q.send(a, second)
                q.end()
                q.isEnded() shouldBe true
                shouldThrow<IllegalStateException> { q.send(a, second) }.message shouldContain "has ended"
                q.receive(F64.TYPE, second)!!.id() shouldBe a.id()
                q.receive(F64.TYPE, second)!!.id() shouldBe a.id()
                q.receive(second) shouldBe null
                q.receive(second) shouldBe null
            }
        }
    }

    test("timeouts, full queues, anonymous arrays and long handles are clear errors") {
        ArrayQueue.create(1).use { q ->
            shouldThrow<WaitTimeoutException> { q.receive(Duration.ofMillis(20)) }.message shouldBe
                "no message on queue ${q.handle()} within PT0.02S"
            SharedArrays.create(F64.TYPE, 2L).use { a ->
                q.trySend(a) shouldBe true
                q.trySend(a) shouldBe false
                shouldThrow<WaitTimeoutException> { q.send(a, Duration.ofMillis(20)) }.message shouldBe
                    "queue ${q.handle()} stayed full (1 messages) for PT0.02S"
            }
            SharedArrays.create(F64.TYPE, longArrayOf(2), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
                shouldThrow<IllegalArgumentException> { q.send(a, second) }.message shouldContain "anonymous array cannot be sent"
            }
        }
        shouldThrow<IllegalArgumentException> { ArrayQueue.create(0) }
        SharedArrays.create(F64.TYPE, 3L).use { a ->
            shouldThrow<InvalidSegmentException> { ArrayQueue.attach(a.handle()) }.message shouldContain "is not an array queue"
        }
    }

    test("the creator's close ends an OWNER queue for attached processes, which still drain it") {
        val q = ArrayQueue.create(4)
        val other = ArrayQueue.attach(q.handle())
        SharedArrays.create(F64.TYPE, 3L).use { a ->
            q.send(a, second)
            q.close()
            other.isEnded() shouldBe true
            other.receive(F64.TYPE, second)!!.size() shouldBe 3L
            other.receive(second) shouldBe null
            other.close()
        }
    }

    test("async receive completes when a message arrives; a cancelled one leaves the message in the queue") {
        ArrayQueue.create(4).use { q ->
            ArrayPool.create(F64.TYPE, 1, 2L).use { pool ->
                val cancelled = q.receiveAsync(Duration.ofSeconds(10))
                cancelled.cancel(true)
                Thread.sleep(100) // the wait thread sees the cancellation within one slice
                val f = q.receiveAsync(Duration.ofSeconds(10))
                val s = pool.acquire(second)
                s.setDouble(0, 5.0)
                q.send(s, second)
                val r = f.get(5, TimeUnit.SECONDS)!!
                r.getDouble(0) shouldBe 5.0
                r.close()
                pool.free() shouldBe 1
            }
        }
    }

    test("change signals: awaitChange returns the new count, or the old one when the time runs out") {
        SharedArrays.create(F64.TYPE, 4L).use { a ->
            val c0 = a.changeCount()
            a.awaitChange(c0, Duration.ofMillis(10)) shouldBe c0
            val f = a.awaitChangeAsync(c0, Duration.ofSeconds(10))
            a.signalChange() shouldBe c0 + 1
            f.get(5, TimeUnit.SECONDS) shouldBe c0 + 1
            a.awaitChange(c0, Duration.ofSeconds(1)) shouldBe c0 + 1
            a.slice(0, 0, 2, 1).changeCount() shouldBe c0 + 1 // views share the count
        }
    }

    test("an interrupt ends awaitChange with a CancellationException and leaves the flag set (a notebook's interrupt)") {
        SharedArrays.create(F64.TYPE, 4L).use { a ->
            val outcome = java.util.concurrent.CompletableFuture<String>()
            val waiter = Thread {
                try {
                    a.awaitChange(a.changeCount(), Duration.ofMinutes(5))
                    outcome.complete("returned")
                } catch (e: java.util.concurrent.CancellationException) {
                    outcome.complete("cancelled, interrupted=${Thread.currentThread().isInterrupted}")
                }
            }
            waiter.start()
            Thread.sleep(200) // past the spin, asleep on the futex
            val start = System.nanoTime()
            waiter.interrupt()
            outcome.get(5, TimeUnit.SECONDS) shouldBe "cancelled, interrupted=true"
            (System.nanoTime() - start < 2_000_000_000L) shouldBe true
            waiter.join()
        }
    }

    test("ls and inspect show queues and pools with their fill level") {
        ArrayQueue.create(8).use { q ->
            ArrayPool.create(U8.TYPE, 4, 16L).use { pool ->
                val held = pool.acquire(second)
                q.send(pool.acquire(second), second)
                q.send(held.slice(0, 0, 4, 1), second)
                SharedArrays.inspect(pool.handle()).fill() shouldBe "pool 2/4"
                SharedArrays.inspect(q.handle()).fill() shouldBe "queue 2/8"
                SharedArrays.inspect(q.handle()).kind() shouldBe SegmentInfo.Kind.QUEUE
                SharedBarrier.create(3).use { b -> SharedArrays.inspect(b.handle()).fill() shouldBe "barrier 0/3" }
                SharedArrays.create(F64.TYPE, 2L).use { a -> SharedArrays.inspect(a.handle()).fill() shouldBe "array" }
                val out = java.io.ByteArrayOutputStream()
                dev.sharedarrays.cli.Cli.run(arrayOf("ls"), java.io.PrintStream(out), java.io.PrintStream(out)) shouldBe 0
                val name = { h: ArrayHandle -> (h as ArrayHandle.Shm).name() }
                out.toString().lines().single { it.startsWith(name(q.handle())) } shouldContain " queue 2/8 "
                out.toString().lines().single { it.startsWith(name(pool.handle())) } shouldContain " pool 2/4 "
                out.reset()
                dev.sharedarrays.cli.Cli.run(arrayOf("inspect", q.handle().toString()), java.io.PrintStream(out), java.io.PrintStream(out))
                out.toString() shouldContain "kind       queue: 2 of 8 messages waiting"
                held.close()
            }
        }
    }

    test("the last close of a queue returns the slots of the messages nobody received; an attached reader holds them back") {
        ArrayPool.create(F64.TYPE, 3, 2L).use { pool ->
            val q = ArrayQueue.create(4)
            val reader = ArrayQueue.attach(q.handle())
            q.send(pool.acquire(second), second)
            q.send(pool.acquire(second), second)
            q.close() // the reader may still drain: the slots stay in flight
            pool.free() shouldBe 1
            reader.receive(second)!!.close()
            pool.free() shouldBe 2
            reader.close() // the last one: the message left goes back
            pool.free() shouldBe 3
        }
    }
})
