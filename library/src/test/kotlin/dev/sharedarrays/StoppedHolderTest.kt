package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.Stopping.MUTEX_WORD
import dev.sharedarrays.testing.Stopping.PID_MASK
import dev.sharedarrays.testing.Stopping.signal
import dev.sharedarrays.testing.Stopping.stop
import dev.sharedarrays.testing.Stopping.stopHoldingMutex
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeGreaterThanOrEqual
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.types.shouldBeInstanceOf
import java.time.Duration
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit

/**
 * A process stopped (SIGSTOP: alive, not progressing) while it holds shared state: a queue's mutex,
 * pool slots, a barrier registration. No other process waits past its own timeout; once the stopped
 * process is SIGKILLed, what it held is taken over as from any dead holder.
 */
class StoppedHolderTest : FunSpec({

    test("a SIGSTOPped holder of a queue's mutex: receive(200 ms) times out in < 1 s, trySend is false in < 200 ms; after SIGKILL the queue works again") {
        ArrayQueue.create(4).use { q ->
            ArrayPool.create(F64.TYPE, 8, 4L).use { pool ->
                SharedArrays.attach(q.handle()).use { any ->
                    val words = any.`as`(I64.TYPE)
                    ChildJvm("stop-churn", q.handle().toString(), pool.handle().toString(), "2").use { child ->
                        try {
                            child.expectLine("CHURNING")
                            val tries = stopHoldingMutex(child.pid, words, MAX_TRIES)
                            withClue("no SIGSTOP of $MAX_TRIES caught the child holding the queue's mutex") { (tries > 0) shouldBe true }
                            val slot = pool.acquire(Duration.ofSeconds(1))
                            val receive = bounded { q.receive(Duration.ofMillis(200)) }
                            val trySend = bounded { q.trySend(slot) }
                            val send = bounded { q.send(slot, Duration.ofMillis(200)) }
                            val async = bounded { q.receiveAsync(Duration.ofMillis(200)).get(5, TimeUnit.SECONDS) }
                            println("queue mutex held by stopped pid ${child.pid} (caught at try $tries): receive(200 ms) ${receive.ms} ms, " +
                                "trySend ${trySend.ms} ms, send(200 ms) ${send.ms} ms, receiveAsync(200 ms) ${async.ms} ms")
                            println("  receive: ${receive.result.exceptionOrNull()?.message}")
                            (words.getVolatile(MUTEX_WORD) and PID_MASK) shouldBe child.pid

                            receive.ms shouldBeLessThan 1000L
                            receive.ms shouldBeGreaterThanOrEqual 200L
                            val e = receive.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>()
                            e.message shouldContain "pid ${child.pid}"
                            e.message shouldContain "stopped"
                            trySend.ms shouldBeLessThan 200L
                            trySend.result.getOrThrow() shouldBe false
                            send.ms shouldBeLessThan 1000L
                            send.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>().message shouldContain "pid ${child.pid}"
                            async.ms shouldBeLessThan 1000L
                            async.result.exceptionOrNull().shouldBeInstanceOf<ExecutionException>().cause
                                .shouldBeInstanceOf<WaitTimeoutException>()

                            child.kill()
                            val t0 = System.nanoTime()
                            slot.setDouble(0, 42.0)
                            q.send(slot, Duration.ofSeconds(5)) // takes the mutex over from the dead child
                            val takeoverMs = (System.nanoTime() - t0) / 1_000_000
                            var got: SharedNDArray<F64>? = null
                            while (got == null) {
                                val a = q.receive(F64.TYPE, Duration.ofSeconds(5))!!
                                if (a.getDouble(0) == 42.0) got = a else a.close() // the dead child's messages come first
                            }
                            got.close()
                            println("after SIGKILL: send took the mutex over in $takeoverMs ms")
                            takeoverMs shouldBeLessThan 1000L
                            q.size() shouldBe 0L
                            words.getVolatile(MUTEX_WORD) shouldBe 0L
                        } finally {
                            signal("CONT", child.pid)
                        }
                    }
                }
            }
        }
    }

    test("end() and the owner's close() complete while a SIGSTOPped process holds the queue's mutex") {
        val q = ArrayQueue.create(4)
        try {
            ArrayPool.create(F64.TYPE, 8, 4L).use { pool ->
                SharedArrays.attach(q.handle()).use { any ->
                    val words = any.`as`(I64.TYPE)
                    ChildJvm("stop-churn", q.handle().toString(), pool.handle().toString(), "2").use { child ->
                        try {
                            child.expectLine("CHURNING")
                            withClue("no SIGSTOP of $MAX_TRIES caught the child holding the queue's mutex") {
                                (stopHoldingMutex(child.pid, words, MAX_TRIES) > 0) shouldBe true
                            }
                            val end = bounded { q.end() }
                            end.result.getOrThrow()
                            q.isEnded() shouldBe true
                            val close = bounded { q.close() }
                            println("queue mutex held by stopped pid ${child.pid}: end() ${end.ms} ms, close() ${close.ms} ms")
                            close.result.getOrThrow()
                            end.ms shouldBeLessThan 200L
                            close.ms shouldBeLessThan 1000L
                            q.isClosed() shouldBe true
                        } finally {
                            signal("CONT", child.pid)
                        }
                    }
                }
            }
        } finally {
            q.close()
        }
    }

    test("a SIGSTOPped writer of an array: lockWrite(200 ms) and lockRead(200 ms) throw WaitTimeoutException naming it in < 1 s; after SIGKILL lockWrite takes the lock over") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            a.lockWrite(Duration.ZERO).use { a.lockStatus().writerPid() shouldBe ProcessHandle.current().pid() }
            ChildJvm("hold-write", a.handle().toString()).use { child ->
                try {
                    child.expectLine("WRITING")
                    stop(child.pid)
                    val w = bounded { a.lockWrite(Duration.ofMillis(200)) }
                    val r = bounded { a.lockRead(Duration.ofMillis(200)) }
                    val z = bounded { a.lockWrite(Duration.ZERO) }
                    println("array write lock held by stopped pid ${child.pid}: lockWrite(200 ms) ${w.ms} ms, lockRead(200 ms) ${r.ms} ms, " +
                        "lockWrite(0) ${z.ms} ms")
                    val held = "it is held by pid ${child.pid}, which is stopped (SIGSTOP, ^Z or a debugger): it holds on until it is " +
                        "continued or killed. Nothing was locked; the call may be repeated"
                    w.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>().message shouldBe
                        "could not take the write lock of ${a.handle()} within PT0.2S: $held"
                    r.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>().message shouldBe
                        "could not take the read lock of ${a.handle()} within PT0.2S: $held"
                    z.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>()
                    w.ms shouldBeGreaterThanOrEqual 200L
                    w.ms shouldBeLessThan 1000L
                    r.ms shouldBeLessThan 1000L
                    z.ms shouldBeLessThan 200L
                    a.lockStatus().writerPid() shouldBe child.pid
                    a.lockStatus().readerPids() shouldBe emptyList()

                    child.kill()
                    val t0 = System.nanoTime()
                    a.lockWrite(Duration.ofSeconds(5)).use {
                        val ms = (System.nanoTime() - t0) / 1_000_000
                        println("after SIGKILL: lockWrite(5 s) took the lock over in $ms ms")
                        ms shouldBeLessThan 1000L
                        a.lockStatus().writerPid() shouldBe ProcessHandle.current().pid()
                    }
                    a.lockStatus().recoveries() shouldBe 1L
                } finally {
                    signal("CONT", child.pid)
                }
            }
        }
    }

    test("a SIGSTOPped reader: lockWrite(200 ms) times out naming it, lockRead(200 ms) shares; another thread's write lock times out lockWrite(100 ms)") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            ChildJvm("hold-read", a.handle().toString()).use { child ->
                try {
                    child.expectLine("READING")
                    stop(child.pid)
                    val w = bounded { a.lockWrite(Duration.ofMillis(200)) }
                    w.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>().message shouldContain
                        "it is held by pid ${child.pid}, which is stopped"
                    w.ms shouldBeLessThan 1000L
                    a.lockStatus().writerPid() shouldBe 0L // the timed-out writer let go of the writer word
                    a.lockRead(Duration.ofMillis(200)).use { a.lockStatus().readerPids().sorted() shouldBe
                        listOf(child.pid, ProcessHandle.current().pid()).sorted() }
                } finally {
                    signal("CONT", child.pid)
                }
            }
        }
        SharedArrays.create(F64.TYPE, 10L).use { a ->
            val taken = java.util.concurrent.CountDownLatch(1)
            val release = java.util.concurrent.CountDownLatch(1)
            val holder = Thread.ofPlatform().start {
                a.lockWrite().use {
                    taken.countDown()
                    release.await()
                }
            }
            try {
                taken.await()
                val w = bounded { a.lockWrite(Duration.ofMillis(100)) }
                val r = bounded { a.lockRead(Duration.ofMillis(100)) }
                w.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>().message shouldContain
                    "another thread of this process"
                r.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>()
                w.ms shouldBeLessThan 1000L
                r.ms shouldBeLessThan 1000L
            } finally {
                release.countDown()
                holder.join()
            }
            a.lockWrite(Duration.ofMillis(100)).close()
        }
    }

    test("a SIGSTOPped registered party: await(300 ms) breaks the barrier on time (TIMED_OUT)") {
        SharedBarrier.create(2).use { b ->
            b.register()
            ChildJvm("barrier-register", b.handle().toString()).use { child ->
                try {
                    child.expectLine("REGISTERED")
                    stop(child.pid)
                    val w = bounded { b.await(Duration.ofMillis(300)) }
                    println("barrier with a stopped party: await(300 ms) broke after ${w.ms} ms")
                    w.result.exceptionOrNull().shouldBeInstanceOf<BarrierBrokenException>().reason() shouldBe
                        BarrierBrokenException.Reason.TIMED_OUT
                    w.ms shouldBeGreaterThanOrEqual 300L
                    w.ms shouldBeLessThan 1000L
                } finally {
                    signal("CONT", child.pid)
                }
            }
        }
    }

    test("a SIGSTOPped process holding every pool slot: tryAcquire is null at once, acquire(200 ms) times out in < 1 s; after SIGKILL its slots come back") {
        ArrayPool.create(F64.TYPE, 2, 16L).use { pool ->
            ChildJvm("pool-hold", pool.handle().toString(), "2").use { child ->
                try {
                    child.expectLine("HOLDING")
                    stop(child.pid)
                    val tried = bounded { pool.tryAcquire() }
                    val acquired = bounded { pool.acquire(Duration.ofMillis(200)) }
                    println("pool held by a stopped process: tryAcquire ${tried.ms} ms, acquire(200 ms) ${acquired.ms} ms")
                    tried.ms shouldBeLessThan 200L
                    tried.result.getOrThrow().shouldBeNull()
                    acquired.ms shouldBeLessThan 1000L
                    acquired.result.exceptionOrNull().shouldBeInstanceOf<WaitTimeoutException>()
                    child.kill()
                    pool.acquire(Duration.ofSeconds(2)).close()
                    pool.free() shouldBe 2
                } finally {
                    signal("CONT", child.pid)
                }
            }
        }
    }
})

private const val MAX_TRIES = 300

private class Timed<T>(val ms: Long, val result: Result<T>)

/** Runs [block] on a thread of its own, waiting at most 5 s for it: a call that hangs fails the test instead of hanging it. */
private fun <T> bounded(block: () -> T): Timed<T> {
    var result: Result<T>? = null
    var end = 0L
    val t0 = System.nanoTime()
    val t = Thread.ofPlatform().daemon().start {
        result = runCatching(block)
        end = System.nanoTime()
    }
    t.join(5000)
    if (t.isAlive) {
        return Timed((System.nanoTime() - t0) / 1_000_000, Result.failure(AssertionError("still blocked after 5 s")))
    }
    return Timed((end - t0) / 1_000_000, result!!)
}
