package dev.sharedarrays.testing

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.Lifetime
import dev.sharedarrays.SegmentNotFoundException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import java.nio.file.Files
import java.nio.file.LinkOption
import java.nio.file.Path
import java.nio.file.StandardCopyOption

/**
 * Child commands for lifetime and sweep tests:
 *  - `agent`: reads commands on stdin, answers each with one line:
 *    `create <name> <lifetime>` (an F64 shm array) → `CREATED <pid>`; `attach <name>` → `ATTACHED`;
 *    `close` (closes what it holds) → `CLOSED`; `exit`
 *  - `sweep-loop <seconds> <pause µs>`: sweep (not dry), pause, again, until the time is up; print `SWEPT <files removed>`
 *  - `attach-race <template> <staging dir> <attaches> <names>`: keeps `names` copies of the
 *     template segment file in the shm directory (renamed in from the staging directory, on the
 *     same file system), attaches and closes one until a sweep removes it, then the next; after each
 *     attach checks that the name still names the file it had when it was placed there; prints
 *     `RACE <attaches> <not found> <violations>`
 *  - `lock-write-timed <handle>`: attach, take and release the write lock, print `LOCKED <ms>`
 *  - `create-sweeping`: on stdin `create` makes and closes an unrelated array (which starts the
 *     background sweep), answering `CREATED`; `exit`
 */
object LifetimeCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "agent" -> agent()
            "sweep-loop" -> {
                val end = System.nanoTime() + args[1].toLong() * 1_000_000_000L
                var n = 0
                val pause = args[2].toLong() * 1000
                while (System.nanoTime() < end) {
                    n += SharedArrays.sweep(false).size
                    java.util.concurrent.locks.LockSupport.parkNanos(pause)
                }
                println("SWEPT $n")
            }
            "attach-race" -> attachRace(Path.of(args[1]), Path.of(args[2]), args[3].toInt(), args[4].toInt())
            "lock-write-timed" -> SharedArrays.attach(args[1]).use { a ->
                val t0 = System.nanoTime()
                a.lockWrite().use { }
                println("LOCKED ${(System.nanoTime() - t0) / 1_000_000}")
            }
            "create-sweeping" -> while (true) {
                val line = readlnOrNull() ?: break
                if (line == "exit") break
                SharedArrays.create(F64.TYPE, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM)).close()
                println("CREATED")
                System.out.flush()
            }
            else -> return false
        }
        return true
    }

    private fun agent() {
        val held = mutableListOf<SharedNDArray<*>>()
        while (true) {
            val parts = (readlnOrNull() ?: break).split(" ")
            when (parts[0]) {
                "create" -> {
                    held += SharedArrays.create(F64.TYPE, longArrayOf(16),
                        CreateOptions.defaults().backend(Backend.SHM).name(parts[1]).lifetime(Lifetime.valueOf(parts[2])))
                    println("CREATED ${ProcessHandle.current().pid()}")
                }
                "attach" -> {
                    held += SharedArrays.attach("shm://" + parts[1])
                    println("ATTACHED")
                }
                "close" -> {
                    held.forEach { it.close() }
                    held.clear()
                    println("CLOSED")
                }
                "exit" -> break
            }
            System.out.flush()
        }
    }

    private fun attachRace(template: Path, staging: Path, attaches: Int, names: Int) {
        val dir = SharedArrays.shmDirectory()
        val bytes = Files.readAllBytes(template)
        var serial = 0
        // name -> inode it had when placed; a name swept is replaced by a fresh copy
        val placed = HashMap<String, Any>()
        fun place(): String {
            val name = "race-${serial++}"
            val stage = staging.resolve(name)
            Files.write(stage, bytes) // written in full: a copy with holes would be refused as sparse
            // a rename keeps the inode; a sweep may remove the file as soon as it is in place
            placed[name] = Files.getAttribute(stage, "unix:ino", LinkOption.NOFOLLOW_LINKS)
            Files.move(stage, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE)
            return name
        }
        val current = MutableList(names) { place() }
        var done = 0
        var notFound = 0
        var violations = 0
        var k = 0
        while (done < attaches) {
            val name = current[k]
            val a = try {
                SharedArrays.attach("shm://$name")
            } catch (e: SegmentNotFoundException) {
                // swept between two attaches: the next name, and a fresh copy in this one's place
                notFound++
                current[k] = place()
                k = (k + 1) % names
                continue
            }
            try {
                done++
                // while this process holds it, nothing may unlink it
                val ino = runCatching { Files.getAttribute(dir.resolve(name), "unix:ino", LinkOption.NOFOLLOW_LINKS) }.getOrNull()
                if (ino != placed[name]) {
                    violations++
                    System.err.println("VIOLATION $name: inode ${placed[name]} placed, $ino while attached")
                }
            } finally {
                a.close()
            }
        }
        current.forEach { runCatching { Files.deleteIfExists(dir.resolve(it)) } }
        println("RACE $done $notFound $violations")
    }
}
