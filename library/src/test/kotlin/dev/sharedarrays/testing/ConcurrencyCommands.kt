package dev.sharedarrays.testing

import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedBarrier
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.SharedNDArray
import java.io.FileInputStream
import java.io.FileNotFoundException
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean

/**
 * Child commands for lock and barrier tests:
 *  - `lock-storm <handle>`: print `STORM`, then fill the F64 array with 1, 2, 3, ... each under the write lock, forever
 *  - `hold-read <handle>`: take the read lock, print `READING`, sleep
 *  - `fill-when-free <handle> <value>`: print `WAITING`, fill (takes the write lock), print `FILLED`
 *  - `count <handle> <n>`: n times: increment element 0 of an I64 array under the write lock and
 *     getAndAdd(1, 1); print `DONE`
 *  - `add-loop <x> <y> <seconds>`: `x += y` until the time is up, print `ITERATIONS <n>`
 *  - `barrier-register <barrier>`: attach and register, print `REGISTERED`, sleep
 *  - `barrier-party <barrier> <timeout ms>`: attach and register, print `REGISTERED`, await; print
 *     `PASSED` or `BROKEN <pid> <reason> <ms waited>`
 *  - `barrier-rounds <barrier> <I64 array> <rounds>`: each round r: set element 1 to r, await, check that
 *     element 0 (the parent's) is r, await; print `ROUNDS <n>` or `MISMATCH ...`
 *  - `hold-write <handle>`: take the write lock, print `WRITING`, sleep
 *  - `lock-at-fd-limit <handle>`: take and release the write lock once (everything it runs is loaded), print
 *     `READY`, wait for a line on stdin, open /dev/null until no descriptor is left, then take the write lock and
 *     print `TOOK <ms> FDS <opened> PROC_READABLE <whether /proc/self/stat could be read then>`
 *  - `barrier-churn <name>`: create a 1-party shm barrier of that name, keep it 0-1 ms, close it, in a loop until a line
 *     arrives on stdin; print `CHURNING` after 300 (warmed up) and `CREATED <n>` at the end
 */
object ConcurrencyCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "lock-storm" -> fillForever(args[1], "STORM", 0)
            // pausing 0.2 ms between fills so that readers get in
            "paced-fills" -> fillForever(args[1], "FILLING", 200_000)
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
            "barrier-register" -> SharedBarrier.attach(args[1]).use { b ->
                b.register()
                println("REGISTERED")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "barrier-party" -> SharedBarrier.attach(args[1]).use { b ->
                b.register()
                println("REGISTERED")
                System.out.flush()
                val t0 = System.nanoTime()
                try {
                    b.await(Duration.ofMillis(args[2].toLong()))
                    println("PASSED")
                } catch (e: BarrierBrokenException) {
                    println("BROKEN ${e.pid()} ${e.reason()} ${(System.nanoTime() - t0) / 1_000_000}")
                }
            }
            "barrier-rounds" -> SharedBarrier.attach(args[1]).use { b ->
                SharedArrays.attach(args[2]).use { any ->
                    val a = any.`as`(I64.TYPE)
                    b.register()
                    val rounds = args[3].toInt()
                    for (r in 1..rounds) {
                        a.setLong(1, r.toLong())
                        b.await(Duration.ofSeconds(30))
                        val seen = a.getLong(0)
                        if (seen != r.toLong()) {
                            println("MISMATCH round $r saw $seen")
                            return true
                        }
                        b.await(Duration.ofSeconds(30))
                    }
                    println("ROUNDS $rounds")
                }
            }
            "hold-write" -> SharedArrays.attach(args[1]).use { a ->
                a.lockWrite()
                println("WRITING")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "lock-at-fd-limit" -> SharedArrays.attach(args[1]).use { a -> lockAtFdLimit(a) }
            "barrier-churn" -> {
                val stop = AtomicBoolean()
                Thread.ofPlatform().daemon().start {
                    readlnOrNull()
                    stop.set(true)
                }
                val opts = CreateOptions.defaults().backend(Backend.SHM).name(args[1])
                var n = 0L
                while (!stop.get()) {
                    val b = SharedBarrier.create(1, opts)
                    // open for 0 to 1 ms, so that attaches find it too, not only the moments around its birth
                    val until = System.nanoTime() + (n % 5) * 250_000
                    while (System.nanoTime() < until) Thread.onSpinWait()
                    b.close()
                    if (++n == 300L) {
                        // warmed up: creations now come as fast as attaches
                        println("CHURNING")
                        System.out.flush()
                    }
                }
                println("CREATED $n")
            }
            else -> return false
        }
        return true
    }

    /** Prints [ready], then fills the F64 array 1, 2, 3 ... under its write lock until killed, pausing [pauseNanos] between fills. */
    private fun fillForever(handle: String, ready: String, pauseNanos: Int): Nothing {
        SharedArrays.attach(handle).use { any ->
            val a = any.`as`(F64.TYPE)
            println(ready)
            System.out.flush()
            var k = 1L
            while (true) {
                a.withWriteLock { a.fill((k++).toDouble()) }
                if (pauseNanos > 0) Thread.sleep(0, pauseNanos)
            }
        }
    }

    private fun lockAtFdLimit(a: SharedNDArray<*>) {
        a.lockWrite().close()
        println("READY")
        System.out.flush()
        readlnOrNull()
        val held = ArrayList<FileInputStream>()
        try {
            while (true) {
                try {
                    held.add(FileInputStream("/dev/null"))
                } catch (e: FileNotFoundException) {
                    break // EMFILE
                }
            }
            var procReadable = true
            try {
                Files.readString(Path.of("/proc/self/stat"))
            } catch (e: IOException) {
                procReadable = false
            }
            val t0 = System.nanoTime()
            val lock = a.lockWrite()
            val tookMs = (System.nanoTime() - t0) / 1_000_000
            lock.close()
            println("TOOK $tookMs FDS ${held.size} PROC_READABLE $procReadable")
        } finally {
            for (f in held) f.close()
        }
    }
}
