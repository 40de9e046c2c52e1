package dev.sharedarrays.dsl

import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.SharedBarrier
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.util.concurrent.BrokenBarrierException
import java.util.concurrent.Executors
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout

/** Suspending barrier waits, the coroutine barrier and the phased helper, all on one thread where that proves no blocking. */
class ConcurrencyDslTest : FunSpec({
    val single = Executors.newSingleThreadExecutor().asCoroutineDispatcher()
    afterSpec { single.close() }

    test("suspending SharedBarrier.await: three coroutines on ONE thread meet at a 3-party barrier, 20 rounds") {
        sharedArrays {
            val b = barrier(3)
            val parties = listOf(b, attachBarrier(b.handle()), attachBarrier(b.handle()))
            val a = i64(3)
            withContext(single) {
                withTimeout(60.seconds) {
                    parties.mapIndexed { i, p ->
                        async {
                            for (r in 1..20) {
                                a[i] = r.toLong()
                                p.await(10.seconds)
                                for (j in 0 until 3) a[j] shouldBe r.toLong()
                                p.await(10.seconds)
                            }
                        }
                    }.awaitAll()
                }
            }
            b.isBroken() shouldBe false
        }
    }

    test("cancelling a suspended SharedBarrier.await breaks the barrier for the others") {
        sharedArrays {
            val b = barrier(2)
            val other = attachBarrier(b.handle())
            runBlocking(single) {
                val job = launch { b.await() }
                delay(200)
                job.cancel()
                job.join()
                shouldThrow<BarrierBrokenException> { other.await(10.seconds) }.reason() shouldBe
                    BarrierBrokenException.Reason.CANCELLED
            }
        }
    }

    test("CoroutineBarrier: 4 coroutines on one thread, 100 rounds; a cancelled waiter breaks it") {
        val b = CoroutineBarrier(4)
        val counter = IntArray(1)
        withContext(single) {
            (0 until 4).map {
                async {
                    repeat(100) { r ->
                        if (it == 0) counter[0] = r
                        b.await()
                        counter[0] shouldBe r
                        b.await()
                    }
                }
            }.awaitAll()
        }
        val broken = CoroutineBarrier(2)
        runBlocking(single) {
            val waiter = launch { broken.await() }
            delay(100)
            waiter.cancel()
            waiter.join()
            shouldThrow<BrokenBarrierException> { broken.await() }.message shouldBe
                "the barrier is broken: a party was cancelled while waiting"
        }
    }

    test("runPhased: 4 workers write their band, meet, and read every band; 10 rounds") {
        sharedArrays {
            val a = f64(4, 10_000)
            val results = runPhased(4) {
                val band = a.select(0, worker.toLong())
                var seen = 0.0
                for (r in 1..10) {
                    phase { band.fill((r * (worker + 1)).toDouble()) }
                    seen += phase { a.sum() }
                }
                seen
            }
            val expected = (1..10).sumOf { r -> 10_000.0 * r * (1 + 2 + 3 + 4) }
            results shouldBe List(4) { expected }
        }
    }

    test("phasesOf: a worker process side over a SharedBarrier (here: threads of one JVM)") {
        sharedArrays {
            val b = barrier(2)
            val other = attachBarrier(b.handle())
            val a = f64(2)
            listOf(phasesOf(b, 0, 10.seconds), phasesOf(other, 1, 10.seconds)).map { p ->
                async(kotlinx.coroutines.Dispatchers.Default) {
                    p.phase { a[p.worker] = p.worker + 1.0 }
                    p.phase { a.sum() }
                }
            }.let { runBlocking { it.awaitAll() } } shouldBe listOf(3.0, 3.0)
            SharedBarrier.attach(b.handle()).use { it.registeredPids().size shouldBe 2 }
        }
    }
})
