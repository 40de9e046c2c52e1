package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.Patterns
import dev.sharedarrays.testing.PythonPeer
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.File
import java.lang.reflect.Modifier
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * Python processes (package `sharedarrays`, python/) as full peers of JVM processes: arrays either
 * side creates, the same readers-writer lock, a dead holder on either side recovered by the other,
 * the same lifetimes. Every peer is a real process; the Python ones run python/tests/peers/peer.py.
 */
class PythonPeerTest : FunSpec({
    val n = 1000L

    /** Patterns.checksum of an array Patterns.write(seed) filled: BOOL holds 0 or 1. */
    fun expected(dtype: DType<*>, n: Long, seed: Long): Long =
        (0 until n).sumOf { i -> Patterns.value(seed, i).let { if (dtype == Bool.TYPE && it != 0L) 1L else it } * (i + 1) }

    fun waitUntil(what: String, seconds: Long = 30, cond: () -> Boolean) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds)
        while (!cond()) {
            if (System.nanoTime() > deadline) throw AssertionError("timed out waiting until $what")
            Thread.sleep(5)
        }
    }

    context("Python creates, the JVM attaches: every dtype, both see each other's writes") {
        withData(DType.all().associateBy { it.name() }) { dtype ->
            PythonPeer("create", dtype.name(), n.toString(), "5").use { py ->
                val handle = py.expectLine("HANDLE ")
                SharedArrays.attach(handle).use { a ->
                    a.dtype() shouldBe dtype
                    a.shape().toList() shouldBe listOf(n)
                    a.id() shouldBe ArrayHandle.parse(handle).id().asLong
                    Patterns.checksum(a) shouldBe expected(dtype, n, 5)
                    Patterns.write(a, 6)
                    py.send("check")
                    py.expectLine("SEEN ").toLong() shouldBe expected(dtype, n, 6)
                }
                py.send("exit")
                py.expectLine("CLOSED")
                py.waitForExit() shouldBe 0
                SharedArrays.list().none { it.handle().toString() == handle } shouldBe true
            }
        }
    }

    context("the JVM creates, Python attaches: every dtype, both see each other's writes") {
        withData(DType.all().associateBy { it.name() }) { dtype ->
            SharedArrays.createAny(dtype, longArrayOf(n), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
                Patterns.write(a, 7)
                PythonPeer("attach", a.handle().toString(), "8").use { py ->
                    py.expectLine("SEEN ").toLong() shouldBe expected(dtype, n, 7)
                    py.expectLine("WROTE")
                    py.waitForExit() shouldBe 0
                }
                Patterns.checksum(a) shouldBe expected(dtype, n, 8)
            }
        }
    }

    context("the other backends, both ways") {
        withData(listOf(Backend.MEMFD, Backend.FILE).associateBy { it.id() }) { backend ->
            PythonPeer("create", "I32", n.toString(), "9", "owner", backend.id()).use { py ->
                val handle = py.expectLine("HANDLE ")
                handle shouldContain backend.id() + "://"
                SharedArrays.attach(handle).use { a ->
                    a.backend() shouldBe backend
                    Patterns.checksum(a) shouldBe expected(I32.TYPE, n, 9)
                    Patterns.write(a, 10)
                    py.send("check")
                    py.expectLine("SEEN ").toLong() shouldBe expected(I32.TYPE, n, 10)
                }
                py.send("exit")
                py.waitForExit() shouldBe 0
            }
            SharedArrays.createAny(F32.TYPE, longArrayOf(n), CreateOptions.defaults().backend(backend)).use { a ->
                Patterns.write(a, 11)
                PythonPeer("attach", a.handle().toString(), "12").use { py ->
                    py.expectLine("SEEN ").toLong() shouldBe expected(F32.TYPE, n, 11)
                    py.waitForExit() shouldBe 0
                }
                Patterns.checksum(a) shouldBe expected(F32.TYPE, n, 12)
                if (backend == Backend.FILE) a.destroy()
            }
        }
    }

    test("2 child JVMs and 2 Python processes increment one I64 element under the write lock: the exact total") {
        val times = 3000
        SharedArrays.create(I64.TYPE, 2L).use { a ->
            val h = a.handle().toString()
            val jvms = List(2) { ChildJvm("count", h, times.toString()) }
            val pys = List(2) { PythonPeer("count", h, times.toString()) }
            try {
                jvms.forEach { it.expectLine("DONE", 120) }
                pys.forEach { it.expectLine("DONE", 120) }
                jvms.forEach { it.waitForExit() shouldBe 0 }
                pys.forEach { it.waitForExit() shouldBe 0 }
            } finally {
                jvms.forEach { it.close() }
                pys.forEach { it.close() }
            }
            a.getLong(0) shouldBe 4L * times
            a.getLong(1) shouldBe 2L * times // the JVM children's getAndAdd
            a.lockStatus().recoveries() shouldBe 0L
            a.lockStatus().writerPid() shouldBe 0L
        }
    }

    test("a Python process SIGKILLed while it holds the write lock: the JVM's lockWrite takes it over within 1 s") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            PythonPeer("hold-write", a.handle().toString()).use { py ->
                py.expectLine("WRITING")
                a.lockStatus().writerPid() shouldBe py.pid
                val before = a.lockStatus().recoveries()
                py.kill()
                val t0 = System.nanoTime()
                a.lockWrite(Duration.ofSeconds(10)).use {
                    val tookMs = (System.nanoTime() - t0) / 1_000_000
                    tookMs shouldBeLessThan 1000L
                    a.fill(2.5)
                }
                a.lockStatus().recoveries() shouldBe before + 1
                a.lockStatus().writerPid() shouldBe 0L
            }
        }
    }

    test("a JVM SIGKILLed while it holds the write lock: Python's write_lock takes it over within 1 s") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            ChildJvm("hold-write", a.handle().toString()).use { jvm ->
                jvm.expectLine("WRITING")
                a.lockStatus().writerPid() shouldBe jvm.pid
                jvm.kill()
                PythonPeer("lock-write", a.handle().toString(), "10").use { py ->
                    val before = py.expectLine("BEFORE ").toLong()
                    val took = py.expectLine("TOOK ").split(" ")
                    took[0].toLong() shouldBeLessThan 1000L
                    took[2].toLong() shouldBe before + 1
                    took[4].toLong() shouldBe py.pid
                    py.waitForExit() shouldBe 0
                }
            }
            a.lockStatus().recoveries() shouldBe 1L
            a.lockStatus().writerPid() shouldBe 0L
            a.toDoubleArray().all { it == -1.0 } shouldBe true
        }
    }

    test("a Python-created SHARED array attached by a JVM: ls shows both, the last to close removes it") {
        PythonPeer("create", "F64", "100", "1", "shared").use { py ->
            val handle = py.expectLine("HANDLE ")
            val path = SharedArrays.shmDirectory().resolve(ArrayHandle.parse(handle).let { (it as ArrayHandle.Shm).name() })
            ChildJvm("attach-until-line", handle).use { jvm ->
                jvm.expectLine("ATTACHED ") shouldBe "F64 [100]"
                val info = SharedArrays.list().single { it.handle().toString() == handle }
                info.lifetime() shouldBe Lifetime.SHARED
                info.creator().pid() shouldBe py.pid
                info.attached().map { it.pid() } shouldBe listOf(jvm.pid)
                ChildJvm("cli", "ls").use { cli ->
                    cli.expectLine("EXIT ") shouldBe "0"
                    cli.output() shouldContain path.fileName.toString()
                }
                py.send("exit")
                py.expectLine("CLOSED")
                py.waitForExit() shouldBe 0
                Files.exists(path) shouldBe true // the JVM still has it open
                jvm.send("close")
                jvm.expectLine("CLOSED")
                jvm.waitForExit() shouldBe 0
            }
            Files.exists(path) shouldBe false
        }
    }

    test("Python's ls shows a JVM-made SHARED array with its creator and the processes attached") {
        SharedArrays.create(U16.TYPE, longArrayOf(3, 4), CreateOptions.defaults().lifetime(Lifetime.SHARED)).use { a ->
            PythonPeer("attach-hold", a.handle().toString()).use { holder ->
                holder.expectLine("ATTACHED")
                PythonPeer("ls").use { py ->
                    py.expectLine("END")
                    val line = py.output().lines().single { it.startsWith("SEGMENT ${a.handle()} ") }
                    line shouldBe "SEGMENT ${a.handle()} <u2 shared array ${ProcessHandle.current().pid()} ${holder.pid}"
                }
                holder.send("go")
                holder.expectLine("CLOSED")
            }
        }
    }

    test("a Python reader SIGKILLed while it holds the read lock: the JVM's next writer clears its slot") {
        SharedArrays.create(I32.TYPE, 10L).use { a ->
            PythonPeer("hold-read", a.handle().toString()).use { py ->
                py.expectLine("READING")
                a.lockStatus().readerPids() shouldBe listOf(py.pid)
                py.kill()
                val t0 = System.nanoTime()
                a.lockWrite(Duration.ofSeconds(10)).use {
                    ((System.nanoTime() - t0) / 1_000_000) shouldBeLessThan 1000L
                }
                a.lockStatus().recoveries() shouldBe 1L
                a.lockStatus().readerPids() shouldBe emptyList()
            }
        }
    }

    test("python/sharedarrays/_layout.py has every constant of the Java descriptor classes, with the same value, and the element types") {
        val consts = mutableMapOf<String, String>()
        val types = mutableListOf<String>()
        PythonPeer("layout").use { py ->
            py.expectLine("END")
            for (line in py.output().lines()) {
                val parts = line.split(" ")
                when (parts[0]) {
                    "CONST" -> consts[parts[1]] = parts[2]
                    "TYPE" -> types += parts.drop(1).joinToString(" ")
                }
            }
        }
        val java = mutableMapOf<String, String>()
        for (name in listOf("internal.segment.SegmentDescriptor", "internal.sync.QueueDescriptor", "internal.sync.BarrierDescriptor",
            "internal.sync.PoolProtocol")) {
            val c = Class.forName("dev.sharedarrays.$name")
            for (f in c.declaredFields) {
                val m = f.modifiers
                if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m) && f.type.isPrimitive) {
                    java[c.simpleName + "." + f.name] = f.get(null).toString()
                }
            }
        }
        java.size shouldBe 94 // a new Java constant fails here until _layout.py (and docs/PROTOCOL.md) have it
        consts shouldBe java
        types shouldBe dev.sharedarrays.internal.kernel.ElementType.values().map { "${it.name} ${it.code()} ${it.descr()} ${it.itemSize()}" }
    }

    test("a change signalled by the JVM wakes a Python process waiting for it") {
        SharedArrays.create(I64.TYPE, 1L).use { a ->
            val seen = a.changeCount()
            PythonPeer("await-change", a.handle().toString(), seen.toString(), "30").use { py ->
                py.expectLine("WAITING")
                Thread.sleep(100)
                a.signalChange() shouldBe seen + 1
                py.expectLine("CHANGED ").toLong() shouldBe seen + 1
                py.waitForExit() shouldBe 0
            }
        }
    }

    /** A private shm directory for the children (and no background sweeps): only the sweeps the test runs remove anything. */
    fun <T> inPrivateShm(name: String, body: (File, Map<String, String>) -> T): T {
        val dir = scratchDir(name)
        dir.setReadable(false, false); dir.setWritable(false, false); dir.setExecutable(false, false)
        dir.setReadable(true, true); dir.setWritable(true, true); dir.setExecutable(true, true)
        try {
            return body(dir, mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath, "SHARED_ARRAYS_AUTO_SWEEP" to "0"))
        } finally {
            dir.deleteRecursively()
        }
    }

    fun removedBy(py: PythonPeer, dir: File): Set<String> {
        py.expectLine("END")
        return py.output().lines().filter { it.startsWith("REMOVED ${dir.absolutePath}/") }.map { it.removePrefix("REMOVED ") }.toSet()
    }

    test("a Python sweep removes the segments of a SIGKILLed JVM; a JVM sweep those of a SIGKILLed Python process") {
        inPrivateShm("py-sweep") { dir, env ->
            val jvmPaths = ChildJvm("hold", "2", "100", env = env).use { jvm ->
                val paths = List(2) { dir.resolve((ArrayHandle.parse(jvm.expectLine("HANDLE ")) as ArrayHandle.Shm).name()).path }
                PythonPeer("sweep", env = env).use { py -> removedBy(py, dir) shouldBe emptySet() } // in use
                jvm.kill()
                paths
            }
            PythonPeer("sweep", env = env).use { py -> removedBy(py, dir) shouldBe jvmPaths.toSet() }
            jvmPaths.none { File(it).exists() } shouldBe true

            val pyPaths = PythonPeer("hold-create", "2", "100", env = env).use { py ->
                val paths = List(2) { py.expectLine("PATH ") }
                py.expectLine("READY")
                py.kill()
                paths
            }
            pyPaths.all { File(it).exists() } shouldBe true
            ChildJvm("cli", "sweep", env = env).use { cli ->
                cli.expectLine("EXIT ") shouldBe "0"
                pyPaths.forEach { cli.output() shouldContain "removed $it" }
            }
            pyPaths.none { File(it).exists() } shouldBe true
        }
    }

    test("pool slots a JVM sent into a queue whose Python creator was SIGKILLed: Python's ls shows the fill, its sweep frees them") {
        inPrivateShm("py-sweep-queue") { dir, env ->
            ArrayPool.create(F64.TYPE, 8, longArrayOf(4), CreateOptions.defaults().file(dir.toPath().resolve("pool"))).use { pool ->
                PythonPeer("queue-with-slots", pool.handle().toString(), "0", env = env).use { py ->
                    py.expectLine("QUEUE ")
                    val qpath = py.expectLine("PATH ")
                    ArrayQueue.attach("file://$qpath").use { q ->
                        repeat(3) { q.send(pool.acquire(Duration.ofSeconds(10)), Duration.ofSeconds(10)) }
                        q.size() shouldBe 3L
                    }
                    pool.free() shouldBe 5
                    PythonPeer("ls-fill", env = env).use { ls ->
                        ls.expectLine("END")
                        val fills = ls.output().lines().filter { it.startsWith("FILL ") }.associate { l ->
                            l.split(" ").let { it[1].substringBefore("?") to it.drop(2).joinToString(" ") }
                        }
                        fills["file://${dir.absolutePath}/pool"] shouldBe "pool 3/8"
                        fills.filterKeys { it.startsWith("shm://") }.values.toList() shouldBe listOf("queue 3/16")
                    }
                    py.kill()
                    PythonPeer("sweep", env = env).use { sweep -> removedBy(sweep, dir) shouldBe setOf(qpath) }
                }
                pool.free() shouldBe 8
            }
        }
    }

    test("a memfd array served by a JVM is received by Python, and one Python serves is received by a JVM") {
        inPrivateShm("py-memfd") { dir, _ ->
            val sock = dir.resolve("jvm.sock").path
            ChildJvm("create", "memfd", "I32", n.toString(), "13", sock).use { jvm ->
                jvm.expectLine("HANDLE ")
                PythonPeer("receive", sock, "14").use { py ->
                    py.expectLine("SEEN ").toLong() shouldBe expected(I32.TYPE, n, 13)
                    py.expectLine("HANDLE ") shouldContain "memfd://${py.pid}/"
                    py.expectLine("WROTE")
                    py.waitForExit() shouldBe 0
                }
                jvm.send("check")
                jvm.expectLine("SEEN ").toLong() shouldBe expected(I32.TYPE, n, 14)
                jvm.send("exit")
                jvm.waitForExit() shouldBe 0
            }
            val pySock = dir.resolve("py.sock").path
            PythonPeer("serve", pySock, "F32", n.toString(), "15").use { py ->
                py.expectLine("SERVING ")
                ChildJvm("receive", pySock, "16").use { jvm ->
                    jvm.expectLine("SEEN ").toLong() shouldBe expected(F32.TYPE, n, 15)
                    jvm.expectLine("WROTE")
                    jvm.waitForExit() shouldBe 0
                }
                py.send("check")
                py.expectLine("SEEN ").toLong() shouldBe expected(F32.TYPE, n, 16)
                py.send("exit")
                py.expectLine("CLOSED")
                py.waitForExit() shouldBe 0
            }
            File(pySock).exists() shouldBe false
        }
    }
})
