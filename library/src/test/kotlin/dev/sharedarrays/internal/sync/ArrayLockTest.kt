package dev.sharedarrays.internal.sync

import dev.sharedarrays.WaitTimeoutException
import dev.sharedarrays.internal.os.Proc
import dev.sharedarrays.internal.segment.SegmentDescriptor.CONTROL_SIZE
import dev.sharedarrays.internal.segment.SegmentDescriptor.LAST_DEAD_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.READER_SEQ_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.READER_WAITERS_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.READER_SLOTS
import dev.sharedarrays.internal.segment.SegmentDescriptor.READER_SLOTS_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.RECOVERIES_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.SLOT_SIZE
import dev.sharedarrays.internal.segment.SegmentDescriptor.WRITER_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.WRITER_SEQ_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.WRITER_WAITERS_OFFSET
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import java.lang.foreign.Arena
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicInteger
import kotlin.random.Random

/**
 * ArrayLock's state machine, driven directly on a zeroed control block laid out as
 * SegmentDescriptor says: which words each step writes, and what it refuses.
 */
class ArrayLockTest : FunSpec({

    val me = Proc.selfIdent()

    /** A fresh control block and the lock of a fresh array id, released afterwards. */
    fun withLock(body: (ArrayLock, MemorySegment) -> Unit) {
        Arena.ofShared().use { arena ->
            val c = arena.allocate(CONTROL_SIZE.toLong(), CONTROL_SIZE.toLong())
            val id = Random.nextLong()
            val lock = ArrayLock.retain(id)
            try {
                body(lock, c)
            } finally {
                ArrayLock.release(id)
            }
        }
    }

    fun writer(c: MemorySegment) = c.get(JAVA_LONG, WRITER_OFFSET)
    fun slots(c: MemorySegment) = (0 until READER_SLOTS).map { c.get(JAVA_LONG, READER_SLOTS_OFFSET + SLOT_SIZE.toLong() * it) }
    fun heldSlots(c: MemorySegment) = slots(c).filter { it != 0L }
    fun setSlot(c: MemorySegment, i: Int, ident: Long) = c.set(JAVA_LONG, READER_SLOTS_OFFSET + SLOT_SIZE.toLong() * i, ident)

    /** The ident of a process that ran and has been reaped: what a crashed holder leaves behind. */
    fun deadIdent(): Long {
        val p = ProcessBuilder("sleep", "60").start()
        val start = Proc.startTime(p.pid())
        p.destroyForcibly()
        p.waitFor(30, TimeUnit.SECONDS) shouldBe true
        start shouldBeGreaterThan 0L
        val ident = Proc.ident(p.pid(), start)
        Proc.identAlive(ident) shouldBe false
        return ident
    }

    /** Runs body with a live process (a child) whose ident stands for a holder in another process. */
    fun withLiveIdent(body: (Long) -> Unit) {
        val p = ProcessBuilder("sleep", "60").start()
        try {
            val ident = Proc.ident(p.pid(), Proc.startTime(p.pid()))
            Proc.identAlive(ident) shouldBe true
            body(ident)
        } finally {
            p.destroyForcibly()
            p.waitFor(30, TimeUnit.SECONDS)
        }
    }

    // one other thread, so that a lock it takes is released by the same thread
    val other = Executors.newSingleThreadExecutor()
    afterSpec { other.shutdownNow() }

    fun <T> onOtherThread(action: () -> T): T = other.submit(action).get(30, TimeUnit.SECONDS)

    test("write then unlock: the writer word holds this process's ident, then 0, and the writer sequence moves on") {
        withLock { lock, c ->
            val seq = c.get(JAVA_INT, WRITER_SEQ_OFFSET)
            lock.lockWrite(c, "a")
            writer(c) shouldBe me
            ArrayLock.writerPid(c) shouldBe Proc.selfPid()
            heldSlots(c) shouldBe emptyList()
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
            ArrayLock.writerPid(c) shouldBe 0L
            c.get(JAVA_INT, WRITER_SEQ_OFFSET) shouldBe seq + 1
            ArrayLock.recoveries(c) shouldBe 0L
        }
    }

    test("read by two threads: one reader slot for the process, cleared when the last read ends") {
        withLock { lock, c ->
            val seq = c.get(JAVA_INT, READER_SEQ_OFFSET)
            lock.lockRead(c)
            lock.lockRead(c)
            onOtherThread { lock.lockRead(c) }
            heldSlots(c) shouldBe listOf(me)
            ArrayLock.readerPids(c) shouldBe listOf(Proc.selfPid())
            writer(c) shouldBe 0L
            lock.unlockRead(c)
            lock.unlockRead(c)
            heldSlots(c) shouldBe listOf(me)
            onOtherThread { lock.unlockRead(c) }
            heldSlots(c) shouldBe emptyList()
            c.get(JAVA_INT, READER_SEQ_OFFSET) shouldBe seq + 1
        }
    }

    test("first readers of four threads race: each read is covered by a slot of this process, and none is left after the last") {
        withLock { lock, c ->
            val wrong = AtomicInteger()
            val pool = Executors.newFixedThreadPool(4)
            try {
                (1..4).map {
                    pool.submit {
                        repeat(20_000) {
                            lock.lockRead(c)
                            try {
                                // two for a moment: a last reader frees its slot after the state says none
                                val held = heldSlots(c)
                                if (held.isEmpty() || held.any { it != me }) wrong.incrementAndGet()
                            } finally {
                                lock.unlockRead(c)
                            }
                        }
                    }
                }.forEach { it.get(60, TimeUnit.SECONDS) }
            } finally {
                pool.shutdownNow()
            }
            wrong.get() shouldBe 0
            heldSlots(c) shouldBe emptyList()
            writer(c) shouldBe 0L
        }
    }

    test("first readers behind another process's writer: timed ones give up holding nothing, the rest share one slot once it leaves") {
        withLock { lock, c ->
            withLiveIdent { live ->
                c.set(JAVA_LONG, WRITER_OFFSET, live)
                val pool = Executors.newFixedThreadPool(3)
                try {
                    (1..3).map { pool.submit<Throwable?> { runCatching { lock.lockRead(c, "a", 200_000_000L) }.exceptionOrNull() } }
                        .forEach { (it.get(30, TimeUnit.SECONDS) is WaitTimeoutException) shouldBe true }
                    heldSlots(c) shouldBe emptyList()

                    val release = CountDownLatch(1)
                    val reading = CountDownLatch(3)
                    val readers = (1..3).map {
                        pool.submit {
                            lock.lockRead(c)
                            try {
                                reading.countDown()
                                release.await(30, TimeUnit.SECONDS)
                            } finally {
                                lock.unlockRead(c)
                            }
                        }
                    }
                    reading.await(300, TimeUnit.MILLISECONDS) shouldBe false
                    heldSlots(c) shouldBe emptyList()
                    // what the other process's unlock does: clear the word, bump the sequence
                    c.set(JAVA_LONG, WRITER_OFFSET, 0L)
                    Futex.bump(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET)
                    reading.await(10, TimeUnit.SECONDS) shouldBe true
                    heldSlots(c) shouldBe listOf(me)
                    release.countDown()
                    readers.forEach { it.get(10, TimeUnit.SECONDS) }
                    heldSlots(c) shouldBe emptyList()
                } finally {
                    pool.shutdownNow()
                }
            }
        }
    }

    test("the write lock is reentrant: the word is cleared by the last unlock only") {
        withLock { lock, c ->
            lock.lockWrite(c, "a")
            lock.lockWrite(c, "a")
            lock.unlockWrite(c)
            writer(c) shouldBe me
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
        }
    }

    test("a write holder may read without a reader slot; read holds that outlive the write get one") {
        withLock { lock, c ->
            lock.lockWrite(c, "a")
            lock.lockRead(c)
            heldSlots(c) shouldBe emptyList()
            lock.unlockRead(c)
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
            heldSlots(c) shouldBe emptyList()

            lock.lockWrite(c, "a")
            lock.lockRead(c)
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
            heldSlots(c) shouldBe listOf(me)
            lock.unlockRead(c)
            heldSlots(c) shouldBe emptyList()
        }
    }

    test("read then write is refused with IllegalStateException, and the read lock stays held") {
        withLock { lock, c ->
            // on a daemon thread: if the refusal regressed, the upgrade would block that thread forever
            var refused: Throwable? = null
            var writerAfter = -1L
            var slotsAfter = emptyList<Long>()
            val t = Thread.ofPlatform().daemon().start {
                lock.lockRead(c)
                try {
                    refused = runCatching { lock.lockWrite(c, "array x") }.exceptionOrNull()
                    writerAfter = writer(c)
                    slotsAfter = heldSlots(c)
                } finally {
                    lock.unlockRead(c)
                }
            }
            t.join(10_000)
            t.isAlive shouldBe false
            writerAfter shouldBe 0L
            slotsAfter shouldBe listOf(me)
            (refused is IllegalStateException) shouldBe true
            refused!!.message shouldBe
                "cannot take the write lock of array x: this thread holds its read lock, and a read lock cannot be upgraded; " +
                "take the write lock first"
            heldSlots(c) shouldBe emptyList()
        }
    }

    test("a lock is released by the thread that took it: unlocks from another thread are refused and change nothing") {
        withLock { lock, c ->
            lock.lockWrite(c, "a")
            lock.lockRead(c)
            val w = runCatching { onOtherThread { lock.unlockWrite(c) } }.exceptionOrNull()?.cause
            (w is IllegalStateException) shouldBe true
            w!!.message shouldBe "this thread does not hold the write lock; a lock is released by the thread that took it"
            val r = runCatching { onOtherThread { lock.unlockRead(c) } }.exceptionOrNull()?.cause
            (r is IllegalStateException) shouldBe true
            r!!.message shouldBe "this thread does not hold the read lock; a lock is released by the thread that took it"
            writer(c) shouldBe me
            lock.unlockRead(c)
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
        }
    }

    test("a dead process's writer word is taken over within a second, counted, and named as the last dead") {
        withLock { lock, c ->
            val dead = deadIdent()
            c.set(JAVA_LONG, WRITER_OFFSET, dead)
            val t0 = System.nanoTime()
            lock.lockWrite(c, "a")
            (System.nanoTime() - t0) / 1_000_000 shouldBeLessThan 1000L
            writer(c) shouldBe me
            ArrayLock.recoveries(c) shouldBe 1L
            c.get(JAVA_LONG, LAST_DEAD_OFFSET) shouldBe dead
            lock.unlockWrite(c)
            writer(c) shouldBe 0L
        }
    }

    test("a dead process's reader slot is cleared for a writer, and taken over by a reader when all slots are held") {
        withLock { lock, c ->
            val dead = deadIdent()
            setSlot(c, 5, dead)
            lock.lockWrite(c, "a")
            heldSlots(c) shouldBe emptyList()
            ArrayLock.recoveries(c) shouldBe 1L
            lock.unlockWrite(c)

            for (i in 0 until READER_SLOTS) setSlot(c, i, dead)
            lock.lockRead(c)
            slots(c).count { it == me } shouldBe 1
            slots(c).count { it == dead } shouldBe READER_SLOTS - 1
            ArrayLock.recoveries(c) shouldBe 2L
            c.get(JAVA_LONG, LAST_DEAD_OFFSET) shouldBe dead
            lock.unlockRead(c)
            slots(c).count { it == me } shouldBe 0
        }
    }

    test("a live process's writer word is not taken: writers and readers wait until it is released") {
        withLock { lock, c ->
            withLiveIdent { live ->
                c.set(JAVA_LONG, WRITER_OFFSET, live)
                val write = CompletableFuture.runAsync({ lock.lockWrite(c, "a") }, other)
                shouldThrow<TimeoutException> { write.get(300, TimeUnit.MILLISECONDS) }
                writer(c) shouldBe live
                ArrayLock.recoveries(c) shouldBe 0L
                // what the other process's unlock does: clear the word, bump the sequence
                c.set(JAVA_LONG, WRITER_OFFSET, 0L)
                Futex.bump(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET)
                write.get(10, TimeUnit.SECONDS)
                writer(c) shouldBe me
                onOtherThread { lock.unlockWrite(c) }
                writer(c) shouldBe 0L

                setSlot(c, 0, live)
                val blocked = CompletableFuture.runAsync({ lock.lockWrite(c, "a") }, other)
                shouldThrow<TimeoutException> { blocked.get(300, TimeUnit.MILLISECONDS) }
                // the waiting writer holds the word already, so readers stay out (writer preference)
                writer(c) shouldBe me
                slots(c)[0] shouldBe live
                setSlot(c, 0, 0L)
                Futex.bump(c, READER_SEQ_OFFSET, READER_WAITERS_OFFSET)
                blocked.get(10, TimeUnit.SECONDS)
                onOtherThread { lock.unlockWrite(c) }
                writer(c) shouldBe 0L
                ArrayLock.recoveries(c) shouldBe 0L
            }
        }
    }

    test("a writer word that another process keeps changing: timed read and write locks still end at their deadline") {
        withLock { lock, c ->
            withLiveIdent { live -> withLiveIdent { other ->
                val stop = java.util.concurrent.atomic.AtomicBoolean()
                // a hostile process switching the word between two live holders: every look finds it changed
                val churn = Thread {
                    var k = 0L
                    while (!stop.get()) {
                        c.set(JAVA_LONG, WRITER_OFFSET, if (k % 2 == 0L) live else other)
                        Futex.bump(c, WRITER_SEQ_OFFSET, WRITER_WAITERS_OFFSET)
                        k++
                    }
                }
                churn.start()
                try {
                    while (writer(c) == 0L) Thread.onSpinWait() // it runs
                    for (kind in listOf("read", "write")) {
                        val t0 = System.nanoTime()
                        val r = runCatching {
                            if (kind == "read") lock.lockRead(c, "a", 300_000_000L) else lock.lockWrite(c, "a", 300_000_000L)
                        }
                        val ms = (System.nanoTime() - t0) / 1_000_000
                        println("$kind lock against a churning writer word: ${r.exceptionOrNull()?.javaClass?.simpleName ?: "taken"} after $ms ms")
                        (r.exceptionOrNull() is dev.sharedarrays.WaitTimeoutException) shouldBe true
                        ms shouldBeLessThan 1500L
                    }
                } finally {
                    stop.set(true)
                    churn.join()
                    c.set(JAVA_LONG, WRITER_OFFSET, 0L)
                }
            } }
        }
    }
})

