package dev.sharedarrays.dsl

import dev.sharedarrays.F64
import dev.sharedarrays.SharedNDArray
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.util.concurrent.Executors
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield

/** Suspending pools, queues and change waits, on ONE thread where that proves they suspend instead of blocking. */
class StreamingDslTest : FunSpec({
    val single = Executors.newSingleThreadExecutor().asCoroutineDispatcher()
    afterSpec { single.close() }

    test("one thread runs a producer and a consumer coroutine over a full and empty queue (capacity 2, 3 slots): 500 messages in order, no deadlock") {
        sharedArrays {
            val q = queue(2)
            val pool = pool(F64.TYPE, 3, 4)
            val got = ArrayList<Double>()
            var ticks = 0
            withContext(single) {
                withTimeout(60.seconds) {
                    val ticker = launch {
                        while (true) {
                            ticks++
                            delay(1)
                        }
                    }
                    val consumer = async {
                        for (a in q) {
                            got += a.getDouble(0)
                            a.close()
                            if (got.size % 50 == 0) delay(20) // the producer fills the queue and must suspend meanwhile
                        }
                    }
                    launch {
                        for (i in 0 until 500) {
                            val s = pool.acquire(10.seconds)
                            s.setDouble(0, i.toDouble())
                            q.send(s, 10.seconds)
                        }
                        q.end()
                    }.join()
                    consumer.await()
                    ticker.cancel()
                }
            }
            got shouldBe List(500) { it.toDouble() }
            pool.free() shouldBe 3
            (ticks > 10) shouldBe true // the one thread kept running other coroutines while both sides waited
        }
    }

    test("asFlow completes at the end; receive(dtype) types; awaitChange suspends until a signal") {
        sharedArrays {
            val q = queue(8)
            val a = f64(5)
            for (i in 0 until 3) q.send(a.slice(0, i.toLong(), 5, 1))
            q.end()
            q.asFlow(F64.TYPE).map { it.size() }.toList() shouldBe listOf(5L, 4L, 3L)
            val seen = a.changeCount()
            runBlocking(single) {
                val waiter = async { a.awaitChange(seen, 10.seconds) }
                yield()
                a.signalChange()
                waiter.await() shouldBe seen + 1
            }
            a.awaitChange(seen + 1, 0.seconds) shouldBe seen + 1
        }
    }

    test("a cancelled receive sends nothing and takes nothing: the next receive gets the message") {
        sharedArrays {
            val q = queue(4)
            val pool = pool(F64.TYPE, 1, 2)
            runBlocking {
                val waiting = launch { q.receive() }
                delay(50)
                waiting.cancel()
                waiting.join()
                delay(100) // the wait thread sees the cancellation within one slice
                val s: SharedNDArray<F64> = pool.acquire()
                s.setDouble(1, 9.0)
                q.send(s)
                val r = q.receive(F64.TYPE, 5.seconds)!!
                r.getDouble(1) shouldBe 9.0
                r.close()
                pool.free() shouldBe 1
            }
        }
    }
})
