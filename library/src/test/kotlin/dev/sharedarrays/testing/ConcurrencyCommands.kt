package dev.sharedarrays.testing

import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.SharedArrays

/**
 * Child commands for lock and barrier tests:
 *  - `lock-storm <handle>`: print `STORM`, then fill the F64 array with 1, 2, 3, ... each under the write lock, forever
 *  - `hold-read <handle>`: take the read lock, print `READING`, sleep
 *  - `fill-when-free <handle> <value>`: print `WAITING`, fill (takes the write lock), print `FILLED`
 *  - `count <handle> <n>`: n times: increment element 0 of an I64 array under the write lock and
 *     getAndAdd(1, 1); print `DONE`
 *  - `add-loop <x> <y> <seconds>`: `x += y` until the time is up, print `ITERATIONS <n>`
 */
object ConcurrencyCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "lock-storm" -> SharedArrays.attach(args[1]).use { any ->
                val a = any.`as`(F64.TYPE)
                println("STORM")
                System.out.flush()
                var k = 1L
                while (true) {
                    a.withWriteLock { a.fill((k++).toDouble()) }
                }
            }
            "hold-read" -> SharedArrays.attach(args[1]).use { a ->
                a.lockRead()
                println("READING")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "fill-when-free" -> SharedArrays.attach(args[1]).use { a ->
                println("WAITING")
                System.out.flush()
                a.fill(args[2].toDouble())
                println("FILLED")
            }
            "count" -> SharedArrays.attach(args[1]).use { any ->
                val a = any.`as`(I64.TYPE)
                repeat(args[2].toInt()) {
                    a.withWriteLock { a.setLong(0, a.getLong(0) + 1) }
                    a.getAndAdd(1, 1)
                }
                println("DONE")
            }
            "add-loop" -> SharedArrays.attach(args[1]).use { x0 ->
                SharedArrays.attach(args[2]).use { y0 ->
                    val x = x0.`as`(I64.TYPE)
                    val y = y0.`as`(I64.TYPE)
                    val end = System.nanoTime() + args[3].toLong() * 1_000_000_000L
                    var n = 0L
                    while (System.nanoTime() < end) {
                        x.add(y)
                        n++
                    }
                    println("ITERATIONS $n")
                }
            }
            else -> return false
        }
        return true
    }
}
