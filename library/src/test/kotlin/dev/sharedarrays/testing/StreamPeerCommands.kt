package dev.sharedarrays.testing

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.I64
import dev.sharedarrays.SharedBarrier
import java.time.Duration

/**
 * Child JVM commands for the queue, pool and barrier tests with Python peers ([dev.sharedarrays.PythonStreamTest]):
 *  - `stream-barrier <handle> <n> <timeout s>`: register, print `REGISTERED`, await n times printing `TRIP <i>`,
 *     then await once more: print `BROKEN <reason> <pid>` when it breaks (`PASSED` if it trips)
 *  - `stream-send-loop <pool> <queue>`: forever: acquire a slot of the I64 pool, set element 0 to k (0, 1, ...),
 *     send it; print `SENT <k>` every 50 messages
 */
object StreamPeerCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "stream-barrier" -> SharedBarrier.attach(args[1]).use { b ->
                val timeout = Duration.ofSeconds(args[3].toLong())
                b.register()
                println("REGISTERED")
                System.out.flush()
                try {
                    repeat(args[2].toInt()) { i ->
                        b.await(timeout)
                        println("TRIP $i")
                        System.out.flush()
                    }
                    b.await(timeout)
                    println("PASSED")
                } catch (e: BarrierBrokenException) {
                    println("BROKEN ${e.reason()} ${e.pid()}")
                }
                System.out.flush()
            }
            "stream-send-loop" -> {
                val pool = ArrayPool.attach(ArrayHandle.parse(args[1]), I64.TYPE)
                val q = ArrayQueue.attach(args[2])
                var k = 0L
                while (true) {
                    val s = pool.acquire(Duration.ofSeconds(30))
                    s.setLong(0, k)
                    q.send(s, Duration.ofSeconds(30))
                    if (k % 50 == 0L) {
                        println("SENT $k")
                        System.out.flush()
                    }
                    k++
                }
            }
            else -> return false
        }
        return true
    }
}
