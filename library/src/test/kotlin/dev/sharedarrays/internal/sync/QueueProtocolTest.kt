package dev.sharedarrays.internal.sync

import dev.sharedarrays.WaitTimeoutException
import dev.sharedarrays.internal.os.Proc
import dev.sharedarrays.internal.segment.SegmentDescriptor
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeGreaterThanOrEqual
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import io.kotest.matchers.string.shouldStartWith
import java.lang.foreign.Arena
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout

/**
 * The queue's repair of what a process killed in the middle of a send or receive leaves, on bare
 * words: a dead process is an ident with this pid and another start time.
 */
class QueueProtocolTest : FunSpec({
    val dead = Proc.ident(Proc.selfPid(), Proc.selfStartTime() + 1)

    fun queue(capacity: Int): MemorySegment {
        val d = Arena.ofAuto().allocate(QueueDescriptor.words(capacity) * 8, 8)
        QueueProtocol.initialize(d, capacity, 12345)
        return d
    }

    fun pool(slots: Int): MemorySegment {
        val c = Arena.ofAuto().allocate(SegmentDescriptor.CONTROL_SIZE.toLong(), 8)
        PoolProtocol.initialize(c, slots)
        return c
    }

    fun slotMessage(slot: Long) = QueueMessage(QueueMessage.Kind.POOL_SLOT, 7, slot, 1, longArrayOf(2), longArrayOf(1),
        "shm://pool", dead, 0)

    /** Undoes the publish of the last send and leaves the mutex with the dead process: it died just before publishing. */
    fun dieBeforePublish(d: MemorySegment) {
        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.TAIL_OFFSET, d.get(ValueLayout.JAVA_LONG, QueueDescriptor.TAIL_OFFSET) - 1)
        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, dead)
    }

    test("a sender killed after moving its slot in flight, before publishing: the next receiver takes the mutex over, publishes and gets it once") {
        val d = queue(4)
        val p = QueueProtocol(d, 4, "q")
        val c = pool(2)
        c.set(ValueLayout.JAVA_LONG, SegmentDescriptor.POOL_OWNERS_OFFSET, dead)
        p.send(slotMessage(0), { owner -> PoolProtocol.move(c, 0, dead, owner) }, 0) { false } shouldBe true
        dieBeforePublish(d)
        p.size() shouldBe 0L
        val claim = { m: QueueMessage -> PoolProtocol.move(c, m.index().toInt(), p.inFlightOwner(m), Proc.selfIdent()) }
        val m = p.receive(claim, 5_000_000_000L) { false }
        m shouldNotBe null
        m!!.index() shouldBe 0L
        PoolProtocol.owner(c, 0) shouldBe Proc.selfIdent()
        p.receive(claim, 0) { false } shouldBe QueueProtocol.TIMED_OUT
        p.dropped() shouldBe 0L
    }

    test("a sender killed before moving its slot: the message is published, then dropped; the pool frees the dead sender's slot") {
        val d = queue(4)
        val p = QueueProtocol(d, 4, "q")
        val c = pool(2)
        c.set(ValueLayout.JAVA_LONG, SegmentDescriptor.POOL_OWNERS_OFFSET, dead)
        p.send(slotMessage(0), { true }, 0) { false } shouldBe true // "moved" without moving: died before the move
        dieBeforePublish(d)
        val claim = { m: QueueMessage -> PoolProtocol.move(c, m.index().toInt(), p.inFlightOwner(m), Proc.selfIdent()) }
        p.receive(claim, 0) { false } shouldBe QueueProtocol.TIMED_OUT
        p.dropped() shouldBe 1L
        PoolProtocol.free(c, 2) shouldBe 1
        PoolProtocol.reclaimDead(c, 2) shouldBe 1
        PoolProtocol.free(c, 2) shouldBe 2
    }

    test("a receiver killed after claiming the slot, before taking the message: the next receiver drops it, the slot is freed from the dead one") {
        val d = queue(4)
        val p = QueueProtocol(d, 4, "q")
        val c = pool(2)
        c.set(ValueLayout.JAVA_LONG, SegmentDescriptor.POOL_OWNERS_OFFSET + 8, Proc.selfIdent())
        p.send(slotMessage(1), { owner -> PoolProtocol.move(c, 1, Proc.selfIdent(), owner) }, 0) { false } shouldBe true
        // the dead receiver moved the slot to itself and died holding the mutex
        PoolProtocol.move(c, 1, PoolProtocol.inQueue(p.tag(), 0), dead) shouldBe true
        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, dead)
        val claim = { m: QueueMessage -> PoolProtocol.move(c, m.index().toInt(), p.inFlightOwner(m), Proc.selfIdent()) }
        p.receive(claim, 0) { false } shouldBe QueueProtocol.TIMED_OUT
        p.dropped() shouldBe 1L
        PoolProtocol.reclaimDead(c, 2) shouldBe 1
        PoolProtocol.free(c, 2) shouldBe 2
    }

    test("a live holder that does not let go of the mutex: zero timeouts are 'not now' at once, timed waits end at their deadline naming it, end() does not wait") {
        val parent = ProcessHandle.current().parent().orElseThrow().pid()
        val live = Proc.ident(parent, Proc.startTime(parent))
        val d = queue(4)
        val p = QueueProtocol(d, 4, "q")
        val view = QueueMessage(QueueMessage.Kind.VIEW, 9, 0, 1, longArrayOf(1), longArrayOf(1), "shm://a", 0, 0)
        p.send(view, null, 0) { false } shouldBe true
        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, live)

        var t0 = System.nanoTime()
        p.send(view, null, 0) { false } shouldBe false
        p.receive({ true }, 0) { false } shouldBe QueueProtocol.TIMED_OUT
        (System.nanoTime() - t0) shouldBeLessThan 100_000_000L
        t0 = System.nanoTime()
        val e = shouldThrow<WaitTimeoutException> { p.receive({ true }, 100_000_000L) { false } }
        val ms = (System.nanoTime() - t0) / 1_000_000
        ms shouldBeGreaterThanOrEqual 100L
        ms shouldBeLessThan 1000L
        e.message shouldStartWith "could not receive from queue q within PT0.1S: its lock is held by pid $parent, which is "
        shouldThrow<WaitTimeoutException> { p.send(view, null, 50_000_000L) { false } }.message shouldStartWith
            "could not send to queue q within PT0.05S: its lock is held by pid $parent"
        shouldThrow<WaitTimeoutException> { p.pending(50_000_000L) }
        p.end()
        p.isEnded() shouldBe true

        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, dead) // it died: even a zero timeout takes over
        p.receive({ true }, 0) { false }!!.index() shouldBe 0L
        p.receive({ true }, 0) { false } shouldBe null // ended and drained
        d.get(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET) shouldBe 0L
    }

    test("the queue is FIFO and bounded: capacity messages fit, the next send times out") {
        val d = queue(3)
        val p = QueueProtocol(d, 3, "q")
        val view = { i: Long -> QueueMessage(QueueMessage.Kind.VIEW, 9, i, 1, longArrayOf(1), longArrayOf(1), "shm://a", 0, 0) }
        for (i in 0L until 3) p.send(view(i), null, 0) { false } shouldBe true
        p.send(view(3), null, 1_000_000) { false } shouldBe false
        (0 until 3).map { p.receive({ true }, 0) { false }!!.index() } shouldBe listOf(0L, 1L, 2L)
    }

    test("acquire's round-robin start near Int.MAX_VALUE still picks a slot in range") {
        val c = pool(3)
        for (start in listOf(Int.MAX_VALUE, Int.MAX_VALUE - 1, Int.MAX_VALUE - 2)) {
            val i = PoolProtocol.tryAcquire(c, 3, Proc.selfIdent(), start)
            (i in 0..2) shouldBe true
        }
        PoolProtocol.tryAcquire(c, 3, Proc.selfIdent(), Int.MAX_VALUE) shouldBe -1
    }

    test("a view a message describes is refused when it reaches outside the array or its arithmetic overflows") {
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(2, 3), longArrayOf(3, 1), 6) shouldNotBe null
        dev.sharedarrays.internal.array.StridedLayout.within(1, longArrayOf(2, 3), longArrayOf(3, 1), 6) shouldBe null
        dev.sharedarrays.internal.array.StridedLayout.within(5, longArrayOf(2, 3), longArrayOf(-3, -1), 6) shouldNotBe null
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(2, 2, 2),
            longArrayOf(1L shl 40, Long.MAX_VALUE, Long.MAX_VALUE - (1L shl 40) + 2), 1L shl 41) shouldBe null
    }

    /** head and tail pairs no queue of capacity 4 can have; the last ones overflow a signed difference. */
    val damagedWords = listOf(
        5L to 10L, // tail more than capacity past head
        10L to 5L, // tail behind head
        -3L to 0L, // a negative head
        Long.MIN_VALUE + 5 to Long.MAX_VALUE, // tail - head overflows to -(2^63 - 4): "< capacity" before
        Long.MIN_VALUE to Long.MIN_VALUE + 2, // a small difference, negative positions
        Long.MAX_VALUE - 1 to Long.MIN_VALUE + 1, // tail "behind" head only by wrapping
    )

    test("damaged head and tail words, overflowing ones too: receive and send refuse at once, size is 0, pending lists the complete cells only") {
        val view = QueueMessage(QueueMessage.Kind.VIEW, 9, 0, 1, longArrayOf(1), longArrayOf(1), "shm://a", 0, 0)
        for ((head, tail) in damagedWords) {
            val d = queue(4)
            val p = QueueProtocol(d, 4, "q")
            d.set(ValueLayout.JAVA_LONG, QueueDescriptor.HEAD_OFFSET, head)
            d.set(ValueLayout.JAVA_LONG, QueueDescriptor.TAIL_OFFSET, tail)
            val t0 = System.nanoTime()
            shouldThrow<dev.sharedarrays.InvalidSegmentException> { p.receive({ true }, 300_000_000L) { false } }.message shouldBe
                "queue q is damaged: head $head and tail $tail for a capacity of 4 (a queue has 0 <= head <= tail <= head + capacity);" +
                " remove it with sharedarrays rm --force and create it again"
            shouldThrow<dev.sharedarrays.InvalidSegmentException> { p.send(view, null, 300_000_000L) { false } }
            p.pending(300_000_000L) shouldBe emptyList() // no complete cell: the words name no range
            p.pendingOfUnusedQueue() shouldBe emptyList()
            (System.nanoTime() - t0) shouldBeLessThan 100_000_000L
            p.size() shouldBe 0L
            d.get(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET) shouldBe 0L // every refusal let go of the mutex
            d.get(ValueLayout.JAVA_LONG, QueueDescriptor.TAIL_OFFSET) shouldBe tail // nothing published past damaged words
        }
    }

    test("a run of malformed messages is dropped within the deadline: a receive that may not wait drops one and returns") {
        val cap = 1000
        val d = queue(cap)
        val p = QueueProtocol(d, cap, "q")
        // published cells whose kind is no kind: each is dropped by the receive that reaches it
        for (i in 0L until cap) d.set(ValueLayout.JAVA_LONG, QueueDescriptor.cellOffset(i, cap) + QueueDescriptor.CELL_POSITION, i)
        d.set(ValueLayout.JAVA_LONG, QueueDescriptor.TAIL_OFFSET, cap.toLong())
        p.receive({ true }, 0) { false } shouldBe QueueProtocol.TIMED_OUT
        p.dropped() shouldBe 1L
        p.receive({ true }, 200_000_000L) { false } shouldBe QueueProtocol.TIMED_OUT // the rest, then the empty queue's wait
        p.dropped() shouldBe cap.toLong()
    }

    test("words another process keeps changing end no wait past its deadline: a put word bumped on, a mutex cycling through dead holders") {
        val d = queue(4)
        val p = QueueProtocol(d, 4, "q")
        val stop = java.util.concurrent.atomic.AtomicBoolean()
        val bumper = Thread { while (!stop.get()) Futex.bump(d, QueueDescriptor.PUT_SEQ_OFFSET, QueueDescriptor.PUT_WAITERS_OFFSET) }
        bumper.start()
        try {
            val t0 = System.nanoTime()
            p.receive({ true }, 300_000_000L) { false } shouldBe QueueProtocol.TIMED_OUT
            (System.nanoTime() - t0) shouldBeLessThan 1_000_000_000L
        } finally {
            stop.set(true)
            bumper.join()
        }
        // a holder word set over and over to idents of processes that are not running: every takeover CAS loses
        stop.set(false)
        val cycler = Thread {
            var k = 1L
            while (!stop.get()) d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, Proc.ident(Proc.selfPid(), Proc.selfStartTime() + k++))
        }
        cycler.start()
        try {
            val t0 = System.nanoTime()
            val r = runCatching { p.receive({ true }, 300_000_000L) { false } }
            val ms = (System.nanoTime() - t0) / 1_000_000
            println("receive(300 ms) against a mutex word cycling through dead idents: ${r.exceptionOrNull()?.javaClass?.simpleName ?: r.getOrNull()} after $ms ms")
            ms shouldBeLessThan 1500L
        } finally {
            stop.set(true)
            cycler.join()
            d.set(ValueLayout.JAVA_LONG, QueueDescriptor.MUTEX_OFFSET, 0L)
        }
    }

    test("a view whose shape multiplies past what an array may hold is refused, strides of 0 or not") {
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(65536, 65536, 65536, 65536), LongArray(4), 65536) shouldBe null
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(65536, 65536, 65536, 65535), LongArray(4), 65536) shouldBe null
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(1000, 1000, 1000, 1000, 1000), LongArray(5), 1000) shouldBe null
        dev.sharedarrays.internal.array.StridedLayout.within(0, longArrayOf(1000, 1000), LongArray(2), 1000) shouldNotBe null
    }
})

