package dev.sharedarrays.testing

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import java.nio.file.Path
import kotlin.system.exitProcess

/**
 * The program child JVMs run in cross-process tests. Commands (first argument):
 *  - `attach <handle> <seed>`: attach, print `SEEN <checksum of values>`, write pattern(seed), print `WROTE`
 *  - `receive <socket> <seed>`: the same after receiving the fd over a Unix socket
 *  - `create <backend> <dtype> <n> <seed> [socket]`: create, write pattern(seed), print `HANDLE <h>`
 *     (and serve on socket), then on stdin `check <seed>` print `SEEN <checksum>`; `exit` ends
 *  - `attach-hold <handle>`: attach, print `ATTACHED`, then sleep
 *  - `cli <args>`: run the command line, print its output and `EXIT <status>`
 *  - `backend`: print `BACKEND <process default>` and `CREATED <backend of an array that asked for shm>`
 *  - `leak`: create a non-persistent and a persistent shm array, print their handles, exit without closing
 *  - `hold <count> <n>`: create count shm arrays, print `HANDLE <h>` each, then sleep
 *  - `try-create <bytes>`: print `BACKEND <auto-detected>`, create an f64 shm array of about that size and print
 *     `CREATED` or `ERROR <class> <message>`
 *  - lock and barrier commands: see [ConcurrencyCommands]; lifetime and sweep commands: see [LifetimeCommands];
 *    bad files and truncation: see [TrustCommands]; comparisons and arithmetic at another vector width: see [LaneCheck], [ArithmeticLaneCheck]
 */
object Child {
    @JvmStatic
    fun main(args: Array<String>) {
        try {
            run(args)
        } catch (t: Throwable) {
            println("ERROR ${t.javaClass.simpleName} ${t.message}")
            System.out.flush()
            exitProcess(3)
        }
        exitProcess(0)
    }

    private fun run(args: Array<String>) {
        when (args[0]) {
            "attach" -> SharedArrays.attach(args[1]).use { touch(it, args[2].toLong()) }
            "receive" -> SharedArrays.receive(Path.of(args[1])).use { touch(it, args[2].toLong()) }
            "create" -> {
                val opts = CreateOptions.defaults().backend(Backend.parse(args[1]))
                val a = SharedArrays.createAny(DType.of(args[2]), longArrayOf(args[3].toLong()), opts)
                a.use {
                    Patterns.write(a, args[4].toLong())
                    val server = if (args.size > 5) SharedArrays.serve(a, Path.of(args[5])) else null
                    println("HANDLE ${a.handle()}")
                    System.out.flush()
                    while (true) {
                        val line = readlnOrNull() ?: break
                        val parts = line.split(" ")
                        when (parts[0]) {
                            "check" -> println("SEEN ${Patterns.checksum(a)}")
                            "exit" -> break
                        }
                        System.out.flush()
                    }
                    server?.close()
                }
            }
            "attach-hold" -> {
                SharedArrays.attach(args[1])
                println("ATTACHED")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "cli" -> {
                val code = dev.sharedarrays.cli.Cli.run(args.drop(1).toTypedArray(), System.out, System.out)
                println("EXIT $code")
            }
            "backend" -> {
                println("BACKEND ${SharedArrays.backend().id()}")
                SharedArrays.create(dev.sharedarrays.F64.TYPE, longArrayOf(10), CreateOptions.defaults().backend(Backend.SHM))
                    .use { println("CREATED ${it.backend().id()}") }
            }
            "leak" -> {
                // created and never closed: the shutdown hook must remove them at exit
                val a = SharedArrays.create(dev.sharedarrays.F64.TYPE, longArrayOf(100), CreateOptions.defaults().backend(Backend.SHM))
                val p = SharedArrays.create(dev.sharedarrays.F64.TYPE, longArrayOf(100),
                    CreateOptions.defaults().backend(Backend.SHM).persistent(true))
                println("HANDLE ${a.handle()}")
                println("HANDLE ${p.handle()}")
            }
            "hold" -> {
                val held = (1..args[1].toInt()).map {
                    SharedArrays.create(dev.sharedarrays.F64.TYPE, longArrayOf(args[2].toLong()),
                        CreateOptions.defaults().backend(Backend.SHM))
                }
                held.forEach { println("HANDLE ${it.handle()}") }
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "try-create" -> {
                println("BACKEND ${SharedArrays.backend().id()}")
                try {
                    SharedArrays.create(dev.sharedarrays.F64.TYPE, longArrayOf(args[1].toLong() / 8),
                        CreateOptions.defaults().backend(Backend.SHM).name("too-big")).use { println("CREATED") }
                } catch (e: Exception) {
                    println("ERROR ${e.javaClass.simpleName} ${e.message}")
                }
                // what the same size does on the auto-detected backend
                SharedArrays.create(dev.sharedarrays.F64.TYPE, args[1].toLong() / 8).use { println("AUTO ${it.backend().id()}") }
            }
            else -> if (!ConcurrencyCommands.run(args) && !LifetimeCommands.run(args) && !TrustCommands.run(args) &&
                !QueueCommands.run(args) && !StopCommands.run(args) && !HardeningCommands.run(args) &&
                !SlotCommands.run(args) && !TruncationQueueCommands.run(args) && !PeerCommands.run(args) &&
                !StreamPeerCommands.run(args) && !LaneCheck.run(args) && !ArithmeticLaneCheck.run(args)) {
                error("unknown child command ${args[0]}")
            }
        }
    }

    private fun touch(a: SharedNDArray<*>, seed: Long) {
        println("SEEN ${Patterns.checksum(a)}")
        Patterns.write(a, seed)
        println("WROTE")
        System.out.flush()
    }
}

/** A value pattern both sides can compute: element i gets a value from (seed, i) that fits every dtype. */
object Patterns {
    fun value(seed: Long, i: Long): Long = (seed * 31 + i * 7) % 100

    fun write(a: SharedNDArray<*>, seed: Long) {
        for (i in 0 until a.size()) a.setLong(i, value(seed, i))
    }

    fun expected(n: Long, seed: Long): Long = (0 until n).sumOf { value(seed, it) * (it + 1) }

    /** A position-weighted sum: a write to the wrong element or a missed write changes it. */
    fun checksum(a: SharedNDArray<*>): Long = (0 until a.size()).sumOf { a.getLong(it) * (it + 1) }
}
