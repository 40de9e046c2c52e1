package dev.sharedarrays.flight

import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.WaitTimeoutException
import java.time.Duration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** The Kotlin forms: suspend fun forward/pull deliver as the blocking ones do; cancelling the coroutine stops the transfer. */
class SuspendingBridgeTest {
    private fun unique(base: String) = "$base-${ProcessHandle.current().pid()}-${System.nanoTime()}"

    private val wait: Duration = Duration.ofSeconds(20)

    @Test
    fun suspendingForwardAndPullDeliverEachMessageOnceInOrder() {
        val middle = unique("flk-mid")
        val n = 30
        FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0)).use { server ->
            ArrayQueue.create(4, CreateOptions.defaults().name(middle)).use { mid ->
                ArrayPool.create(F64.TYPE, 4, *BridgeChild.SHAPE).use { srcPool ->
                    ArrayQueue.create(2).use { src ->
                        ArrayPool.create(F64.TYPE, 3, *BridgeChild.SHAPE).use { dstPool ->
                            ArrayQueue.create(2).use { dst ->
                                runBlocking(Dispatchers.Default) {
                                    val fwd = async { forward(src, server.location(), middle) }
                                    val pulled = async { pull(server.location(), middle, dstPool, dst) }
                                    launch(Dispatchers.IO) {
                                        for (k in 0 until n) {
                                            val s = srcPool.acquire(wait)
                                            BridgeChild.fill(s, k)
                                            src.send(s, wait)
                                        }
                                        src.end()
                                    }
                                    val got = ArrayList<Int>()
                                    kotlinx.coroutines.withContext(Dispatchers.IO) {
                                        while (true) {
                                            val m = dst.receive(wait) ?: break
                                            m.use { got.add(BridgeChild.check(it)) }
                                        }
                                    }
                                    assertEquals(n.toLong(), withTimeout(20_000) { fwd.await() })
                                    assertEquals(n.toLong(), withTimeout(20_000) { pulled.await() })
                                    assertEquals((0 until n).toList(), got)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    fun cancellingTheCoroutinesStopsBothTransfersAndGivesTheSlotsBack() {
        val middle = unique("flk-cancel")
        FlightBridge.serve(ServeOptions.defaults().listen("127.0.0.1", 0)).use { server ->
            ArrayQueue.create(4, CreateOptions.defaults().name(middle)).use { mid ->
                ArrayPool.create(F64.TYPE, 4, *BridgeChild.SHAPE).use { srcPool ->
                    ArrayQueue.create(2).use { src ->
                        ArrayPool.create(F64.TYPE, 3, *BridgeChild.SHAPE).use { dstPool ->
                            ArrayQueue.create(2).use { dst ->
                                runBlocking(Dispatchers.Default) {
                                    val fwd = launch { forward(src, server.location(), middle) }
                                    val pulled = launch { pull(server.location(), middle, dstPool, dst) }
                                    // two messages through; src never ends, so neither transfer would
                                    kotlinx.coroutines.withContext(Dispatchers.IO) {
                                        for (k in 0 until 2) {
                                            val s = srcPool.acquire(wait)
                                            BridgeChild.fill(s, k)
                                            src.send(s, wait)
                                        }
                                        for (k in 0 until 2) {
                                            dst.receive(wait)!!.use { assertEquals(k, BridgeChild.check(it)) }
                                        }
                                    }
                                    val t0 = System.nanoTime()
                                    withTimeout(5_000) {
                                        fwd.cancelAndJoin()
                                        pulled.cancelAndJoin()
                                    }
                                    val seconds = (System.nanoTime() - t0) / 1e9
                                    assertTrue(seconds < 2.0, "cancel took $seconds s")
                                }
                                // the transfers returned: every slot is back, and neither queue got an end
                                assertEquals(4, srcPool.free())
                                assertEquals(3, dstPool.free())
                                assertThrows(WaitTimeoutException::class.java) { dst.receive(Duration.ofMillis(300)) }
                                assertThrows(WaitTimeoutException::class.java) { mid.receive(Duration.ofMillis(300)) }
                            }
                        }
                    }
                }
            }
        }
    }
}
