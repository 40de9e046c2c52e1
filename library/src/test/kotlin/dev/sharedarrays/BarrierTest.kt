package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldStartWith
import java.time.Duration
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit

/** SharedBarrier across real child JVMs: trips, visibility, dead parties, timeouts, cancellation. */
class BarrierTest : FunSpec({

    test("3 parties, one SIGKILLed before arriving: the other two get the dead-party exception naming its pid, not a hang") {
        SharedBarrier.create(3).use { b ->
            b.register()
            val victim = ChildJvm("barrier-register", b.handle().toString())
            val other = ChildJvm("barrier-party", b.handle().toString(), "10000")
            try {
                victim.expectLine("REGISTERED")
                other.expectLine("REGISTERED")
                b.registeredPids().sorted() shouldBe listOf(ProcessHandle.current().pid(), victim.pid, other.pid).sorted()
                victim.kill()
                val t0 = System.nanoTime()
                val e = shouldThrow<BarrierBrokenException> { b.await(Duration.ofSeconds(10)) }
                val waitedMs = (System.nanoTime() - t0) / 1_000_000
                println("dead party detected after $waitedMs ms: ${e.message}")
                waitedMs shouldBeLessThan 10_000L
                e.reason() shouldBe BarrierBrokenException.Reason.PARTY_DIED
                e.pid() shouldBe victim.pid
                e.message shouldBe "barrier ${b.handle()} is broken: party pid ${victim.pid} died before the barrier tripped"
                val line = other.expectLine("BROKEN").split(" ")
                line[0].toLong() shouldBe victim.pid
                line[1] shouldBe "PARTY_DIED"
                line[2].toLong() shouldBeLessThan 10_000L
                other.waitForExit() shouldBe 0
                b.isBroken() shouldBe true
                shouldThrow<BarrierBrokenException> { b.await(Duration.ofSeconds(1)) }.pid() shouldBe victim.pid
            } finally {
                victim.close()
                other.close()
            }
        }
    }

    test("two processes, 300 rounds of write / barrier / read: each sees the other's write of that round") {
        SharedBarrier.create(2).use { b ->
            SharedArrays.create(I64.TYPE, 2L).use { a ->
                b.register()
                val rounds = 300
                ChildJvm("barrier-rounds", b.handle().toString(), a.handle().toString(), rounds.toString()).use { child ->
                    for (r in 1..rounds) {
                        a.setLong(0, r.toLong())
                        b.await(Duration.ofSeconds(30))
                        a.getLong(1) shouldBe r.toLong()
                        b.await(Duration.ofSeconds(30))
                    }
                    child.expectLine("ROUNDS") shouldBe rounds.toString()
                    child.waitForExit() shouldBe 0
                }
                b.isBroken() shouldBe false
            }
        }
    }

    test("a wait that times out breaks the barrier for every party") {
        SharedBarrier.create(2).use { b ->
            val e = shouldThrow<BarrierBrokenException> { b.await(Duration.ofMillis(200)) }
            e.reason() shouldBe BarrierBrokenException.Reason.TIMED_OUT
            e.message shouldBe "barrier ${b.handle()}: timed out after PT0.2S with 1 of 2 parties arrived; " +
                "the barrier is now broken for all parties"
            SharedBarrier.attach(b.handle()).use { other ->
                val again = shouldThrow<BarrierBrokenException> { other.await(Duration.ofSeconds(5)) }
                again.reason() shouldBe BarrierBrokenException.Reason.TIMED_OUT
                again.pid() shouldBe ProcessHandle.current().pid()
            }
        }
    }

    test("one process, several threads: awaitAsync trips, and cancelling a waiting future breaks the barrier") {
        SharedBarrier.create(3).use { b ->
            SharedBarrier.attach(b.handle()).use { b2 ->
                SharedBarrier.attach(b.handle()).use { b3 ->
                    val f1 = b.awaitAsync(Duration.ofSeconds(10))
                    val f2 = b2.awaitAsync(Duration.ofSeconds(10))
                    val last = b3.await(Duration.ofSeconds(10))
                    listOf(f1.get(10, TimeUnit.SECONDS), f2.get(10, TimeUnit.SECONDS), last).sorted() shouldBe listOf(0, 1, 2)
                    val f3 = b.awaitAsync(Duration.ofSeconds(10))
                    Thread.sleep(100)
                    f3.cancel(true)
                    val e = shouldThrow<ExecutionException> { b2.awaitAsync(Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS) }
                    (e.cause as BarrierBrokenException).reason() shouldBe BarrierBrokenException.Reason.CANCELLED
                }
            }
        }
    }

    test("a party that closes the barrier breaks it for the parties still waiting (PARTY_LEFT), not a hang") {
        SharedBarrier.create(2).use { b ->
            val other = SharedBarrier.attach(b.handle())
            other.register()
            other.close()
            b.registeredPids() shouldBe emptyList()
            val e = shouldThrow<BarrierBrokenException> { b.await(Duration.ofSeconds(10)) }
            e.reason() shouldBe BarrierBrokenException.Reason.PARTY_LEFT
            e.pid() shouldBe ProcessHandle.current().pid()
            e.message shouldBe "barrier ${b.handle()} is broken: party pid ${e.pid()} closed the barrier, so it cannot trip any more"
        }
    }

    test("2,000 attaches racing the creation of a named barrier: each is not-found or a working barrier, never a half-made one") {
        val name = "barrier-race-${ProcessHandle.current().pid()}-${System.nanoTime()}"
        val handle = ArrayHandle.parse("shm://$name")
        val outcomes = mutableMapOf<String, Int>()
        val tripped = HashSet<Long>()
        ChildJvm("barrier-churn", name).use { churn ->
            try {
                churn.expectLine("CHURNING")
                val t0 = System.nanoTime()
                var attaches = 0
                // at least 2,000 attaches, and on until 20 of them found a live incarnation (at most 20 s)
                while (attaches < 2000 || (outcomes["attached"] ?: 0) < 20 && System.nanoTime() - t0 < 20_000_000_000L) {
                    attaches++
                    val outcome = try {
                        SharedBarrier.attach(handle).use { b ->
                            b.parties() shouldBe 1
                            // the first attach of each incarnation passes it; later ones find its slot left
                            if (tripped.add(b.handle().id().asLong)) {
                                b.await(Duration.ofSeconds(5)) shouldBe 0
                            } else {
                                b.registeredPids() shouldBe emptyList()
                            }
                            b.isBroken() shouldBe false
                        }
                        "attached"
                    } catch (e: SegmentNotFoundException) {
                        "not found"
                    } catch (e: SharedArrayException) {
                        "${e.javaClass.simpleName}: ${e.message}"
                    }
                    outcomes.merge(outcome, 1, Int::plus)
                }
                val ms = (System.nanoTime() - t0) / 1_000_000
                churn.send("stop")
                val created = churn.expectLine("CREATED ").toLong()
                println("$attaches attaches in $ms ms against $created creations: $outcomes, ${tripped.size} incarnations passed")
                churn.waitForExit() shouldBe 0
            } finally {
                churn.close()
                runCatching { SharedArrays.remove(handle) }
            }
        }
        outcomes.keys - setOf("attached", "not found") shouldBe emptySet()
        outcomes.getValue("attached") shouldBeGreaterThan 0
    }

    test("registration beyond the party count, attaching a plain array and bad party counts are refused") {
        SharedBarrier.create(1).use { b ->
            b.register() shouldBe 0
            b.register() shouldBe 0
            SharedBarrier.attach(b.handle()).use { other ->
                shouldThrow<IllegalStateException> { other.register() }.message shouldBe
                    "barrier ${b.handle()} has all 1 parties registered (pids [${ProcessHandle.current().pid()}]); " +
                    "create it with more parties"
            }
            b.await(Duration.ofSeconds(1)) shouldBe 0
        }
        SharedArrays.create(F64.TYPE, 10L).use { a ->
            shouldThrow<InvalidSegmentException> { SharedBarrier.attach(a.handle()) }.message shouldStartWith
                "${a.handle()} is not a shared barrier: it is an array of F64 [10]"
        }
        shouldThrow<IllegalArgumentException> { SharedBarrier.create(0) }.message shouldBe
            "a barrier has 1 to 4096 parties, but parties was 0"
    }
})
