package dev.sharedarrays.testing

import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.SharedBarrier
import java.time.Duration

/**
 * Child JVM commands for the queue, pool and barrier tests with Python peers ([dev.sharedarrays.PythonStreamTest]):
 *  - `stream-barrier <handle> <n> <timeout s>`: register, print `REGISTERED`, await n times printing `TRIP <i>`,
 *     then await once more: print `BROKEN <reason> <pid>` when it breaks (`PASSED` if it trips)
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
            else -> return false
        }
        return true
    }
}
