package dev.sharedarrays.testing

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.F64
import java.time.Duration

/**
 * Child commands for the stopped-holder tests ([dev.sharedarrays.StoppedHolderTest]):
 *  - `stop-churn <queue> <pool> <threads>`: print `CHURNING`, then on each of the threads acquire an F64 pool
 *     slot, send it and receive a message, as fast as it goes, forever: the queue's mutex is held often, so
 *     that a SIGSTOP catches it held
 */
object StopCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "stop-churn" -> {
                val q = ArrayQueue.attach(args[1])
                val pool = ArrayPool.attach(ArrayHandle.parse(args[2]), F64.TYPE)
                val threads = (1..args[3].toInt()).map {
                    Thread.ofPlatform().daemon().start {
                        while (true) {
                            q.send(pool.acquire(Duration.ofSeconds(30)), Duration.ofSeconds(30))
                            q.receive(Duration.ofSeconds(30))?.close()
                        }
                    }
                }
                println("CHURNING")
                System.out.flush()
                threads.forEach { it.join() }
            }
            else -> return false
        }
        return true
    }
}
