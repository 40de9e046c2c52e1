package dev.sharedarrays.internal.sync

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.internal.os.Proc
import dev.sharedarrays.internal.sync.BarrierDescriptor.GENERATION_OFFSET
import dev.sharedarrays.internal.sync.BarrierDescriptor.slotOffset
import dev.sharedarrays.internal.sync.BarrierDescriptor.words
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import java.lang.foreign.Arena
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/** BarrierProtocol on bare memory laid out as BarrierDescriptor says. */
class BarrierProtocolTest : FunSpec({

    val handle = ArrayHandle.parse("shm://sa-0000000000000001?id=0000000000000001")

    fun withBarrier(parties: Int, body: (BarrierProtocol, MemorySegment) -> Unit) {
        Arena.ofShared().use { arena ->
            val d = arena.allocate(8 * words(parties), 8)
            BarrierProtocol.initialize(d, parties)
            body(BarrierProtocol(handle, parties), d)
        }
    }

    test("the party count is read back only from memory that holds a barrier of matching size") {
        withBarrier(3) { _, d ->
            BarrierProtocol.parties(d, words(3)) shouldBe 3
            BarrierProtocol.parties(d, words(3) + 1) shouldBe -1
        }
        Arena.ofConfined().use { arena ->
            BarrierProtocol.parties(arena.allocate(8 * words(3), 8), words(3)) shouldBe -1
        }
    }

    test("slots: registered until taken, left slots are no longer counted") {
        withBarrier(2) { p, d ->
            p.register(d) shouldBe 0
            p.register(d) shouldBe 1
            p.register(d) shouldBe -1
            p.registeredPids(d) shouldBe listOf(Proc.selfPid(), Proc.selfPid())
            BarrierProtocol.leave(d, 1)
            p.registeredPids(d) shouldBe listOf(Proc.selfPid())
            d.get(JAVA_LONG, slotOffset(1)) shouldBe (Proc.selfIdent() or BarrierDescriptor.LEFT)
        }
    }

    test("two threads trip a barrier of 2: arrival indices 1 and 0, one generation on, nobody left waiting") {
        withBarrier(2) { p, d ->
            val gen = d.get(JAVA_INT, GENERATION_OFFSET)
            val first = CompletableFuture.supplyAsync { p.await(d, Duration.ofSeconds(10), { false }, AtomicLong()) }
            val second = p.await(d, Duration.ofSeconds(10), { false }, AtomicLong())
            listOf(first.get(10, TimeUnit.SECONDS), second).sorted() shouldBe listOf(0, 1)
            d.get(JAVA_INT, GENERATION_OFFSET) shouldBe gen + 1
            BarrierProtocol.waiting(d) shouldBe 0
            BarrierProtocol.isBroken(d) shouldBe false
        }
    }

    test("a registered party whose process is gone breaks the barrier within a second, naming its pid") {
        withBarrier(2) { p, d ->
            val child = ProcessBuilder("sleep", "60").start()
            val dead = Proc.ident(child.pid(), Proc.startTime(child.pid()))
            child.destroyForcibly()
            child.waitFor(30, TimeUnit.SECONDS) shouldBe true
            d.set(JAVA_LONG, slotOffset(0), dead)
            val t0 = System.nanoTime()
            val e = shouldThrow<BarrierBrokenException> { p.await(d, Duration.ofSeconds(10), { false }, AtomicLong()) }
            (System.nanoTime() - t0) / 1_000_000 shouldBeLessThan 1000L
            e.reason() shouldBe BarrierBrokenException.Reason.PARTY_DIED
            e.pid() shouldBe child.pid()
            e.message shouldBe "barrier $handle is broken: party pid ${child.pid()} died before the barrier tripped"
            BarrierProtocol.isBroken(d) shouldBe true
        }
    }

    test("a breaker that died between the reason and the bump: a waiter reports the break at once, it does not spin") {
        withBarrier(3) { p, d ->
            p.register(d)
            // what a process killed after storing BROKEN_REASON (PARTY_DIED), before bumping GENERATION, leaves
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_REASON_OFFSET, 1L)
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_BY_OFFSET, Proc.selfIdent())
            val t0 = System.nanoTime()
            shouldThrow<BarrierBrokenException> { p.await(d, Duration.ofMillis(300), { false }, AtomicLong()) }
            // and one that arrived before the reason was stored, waiting in the loop, sees it too
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_REASON_OFFSET, 0L)
            val waiting = CompletableFuture.supplyAsync { p.await(d, Duration.ofMillis(300), { false }, AtomicLong()) }
            Thread.sleep(50)
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_REASON_OFFSET, 1L)
            shouldThrow<java.util.concurrent.ExecutionException> { waiting.get(5, TimeUnit.SECONDS) }.cause!!::class shouldBe
                BarrierBrokenException::class
            (System.nanoTime() - t0) shouldBeLessThan 1_000_000_000L
        }
    }

    test("a breaker descheduled between the reason and its ident: a waiter names the dead party once the ident comes") {
        withBarrier(3) { p, d ->
            p.register(d)
            // the reason stored, BROKEN_BY not yet (its breaker lost the core in between); it comes 30 ms later
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_REASON_OFFSET, 1L)
            val dead = Proc.selfIdent() + 12345
            val late = CompletableFuture.runAsync {
                Thread.sleep(30)
                d.set(JAVA_LONG, BarrierDescriptor.BROKEN_BY_OFFSET, dead)
            }
            val e = shouldThrow<BarrierBrokenException> { p.await(d, Duration.ofSeconds(10), { false }, AtomicLong()) }
            late.get(5, TimeUnit.SECONDS)
            e.pid() shouldBe Proc.identPid(dead)
            e.reason() shouldBe BarrierBrokenException.Reason.PARTY_DIED
            // a breaker that died in between never stores it: pid 0 (unknown) after the bounded wait, not a hang
            d.set(JAVA_LONG, BarrierDescriptor.BROKEN_BY_OFFSET, 0L)
            val t0 = System.nanoTime()
            shouldThrow<BarrierBrokenException> { p.await(d, Duration.ofSeconds(10), { false }, AtomicLong()) }.pid() shouldBe 0L
            (System.nanoTime() - t0) shouldBeLessThan 5_000_000_000L
        }
    }
})

