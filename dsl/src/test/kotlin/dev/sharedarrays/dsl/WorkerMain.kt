package dev.sharedarrays.dsl

import dev.sharedarrays.F64
import dev.sharedarrays.SharedBarrier
import kotlin.system.exitProcess
import kotlinx.coroutines.runBlocking

/**
 * The worker program of the launcher tests:
 *  - `phases <barrier> <array> <worker>`: phase 1 writes row `worker` of the (workers x n) F64 array with
 *    worker + 1; phase 2 prints `TOTAL <sum of the whole array>`; phase 3 doubles its row
 *  - `exit <status>`: prints `EXITING` and exits with that status
 *  - `sleep`: prints `SLEEPING` and sleeps
 */
object WorkerMain {
    @JvmStatic
    fun main(args: Array<String>) {
        when (args[0]) {
            "phases" -> runBlocking {
                SharedBarrier.attach(args[1]).use { b ->
                    withAttached<F64, Unit>(dev.sharedarrays.ArrayHandle.parse(args[2])) { a ->
                        val p = phasesOf(b, args[3].toInt())
                        val row = a.select(0, p.worker.toLong())
                        p.phase { row.fill((p.worker + 1).toDouble()) }
                        p.phase { println("TOTAL ${a.sum()}") }
                        row *= 2.0
                    }
                }
            }
            "exit" -> {
                println("EXITING")
                System.out.flush()
                exitProcess(args[1].toInt())
            }
            "sleep" -> {
                println("SLEEPING")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
        }
    }
}
