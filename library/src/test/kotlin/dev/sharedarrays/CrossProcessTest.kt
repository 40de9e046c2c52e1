package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.Patterns
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.shouldBe
import java.nio.file.Path

/** Real child JVMs attach by handle string (or receive the fd) and share writes both ways. */
class CrossProcessTest : FunSpec({
    val n = 5000L

    data class Route(val label: String, val backend: Backend, val dtype: DType<*>, val socket: Boolean) {
        override fun toString() = label
    }

    val routes = listOf(
        Route("shm", Backend.SHM, F64.TYPE, false),
        Route("file", Backend.FILE, I32.TYPE, false),
        Route("memfd via /proc/<pid>/fd/<n>", Backend.MEMFD, U16.TYPE, false),
        Route("memfd via SCM_RIGHTS", Backend.MEMFD, I64.TYPE, true),
    )

    context("parent creates, child attaches, both see each other's writes") {
        withData(routes.associateBy { it.label }) { r ->
            val socketDir = scratchDir("sock")
            SharedArrays.createAny(r.dtype, longArrayOf(n), CreateOptions.defaults().backend(r.backend)).use { a ->
                Patterns.write(a, 1)
                val server = if (r.socket) SharedArrays.serve(a, socketDir.toPath().resolve("s")) else null
                try {
                    val args = if (r.socket) arrayOf("receive", server!!.socketPath().toString(), "2")
                    else arrayOf("attach", a.handle().toString(), "2")
                    ChildJvm(*args).use { child ->
                        child.expectLine("SEEN ").toLong() shouldBe Patterns.expected(n, 1)
                        child.expectLine("WROTE")
                        child.waitForExit() shouldBe 0
                    }
                    Patterns.checksum(a) shouldBe Patterns.expected(n, 2)
                    if (server != null) server.served() shouldBe 1
                } finally {
                    server?.close()
                    socketDir.deleteRecursively()
                }
            }
        }
    }

    context("child creates, parent attaches, both see each other's writes") {
        withData(routes.associateBy { it.label }) { r ->
            val socketDir = scratchDir("sock")
            val socket = socketDir.toPath().resolve("s")
            val args = mutableListOf("create", r.backend.id(), r.dtype.name(), n.toString(), "3")
            if (r.socket) args += socket.toString()
            try {
                ChildJvm(*args.toTypedArray()).use { child ->
                    val handle = child.expectLine("HANDLE ")
                    val a = if (r.socket) SharedArrays.receive(socket) else SharedArrays.attach(handle)
                    a.use {
                        a.dtype() shouldBe r.dtype
                        a.id() shouldBe ArrayHandle.parse(handle).id().asLong
                        Patterns.checksum(a) shouldBe Patterns.expected(n, 3)
                        Patterns.write(a, 4)
                        child.send("check")
                        child.expectLine("SEEN ").toLong() shouldBe Patterns.expected(n, 4)
                    }
                    child.send("exit")
                    child.waitForExit() shouldBe 0
                }
            } finally {
                socketDir.deleteRecursively()
            }
        }
    }

    test("a child that attaches records itself in an attach slot, and clears it when it exits") {
        SharedArrays.create(F64.TYPE, longArrayOf(10), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            val killed = ChildJvm("attach-hold", a.handle().toString())
            killed.use { child ->
                child.expectLine("ATTACHED")
                val info = SharedArrays.inspect(a.handle())
                info.attached().map { it.pid() } shouldBe listOf(child.pid)
                info.attached().single().alive() shouldBe true
                info.creator().pid() shouldBe ProcessHandle.current().pid()
                child.kill()
                SharedArrays.inspect(a.handle()).attached().single().alive() shouldBe false
            }
            // a clean exit clears the slot; the SIGKILLed one stays, shown dead, until its slot is needed
            ChildJvm("attach", a.handle().toString(), "5").use { child ->
                child.expectLine("WROTE")
                child.waitForExit() shouldBe 0
            }
            SharedArrays.inspect(a.handle()).attached().map { it.pid() to it.alive() } shouldBe listOf(killed.pid to false)
        }
    }

    test("at normal exit a process destroys the non-persistent arrays it created and keeps persistent ones") {
        val shm = SharedArrays.shmDirectory()
        ChildJvm("leak").use { child ->
            val temporary = ArrayHandle.parse(child.expectLine("HANDLE ")) as ArrayHandle.Shm
            val persistent = ArrayHandle.parse(child.expectLine("HANDLE ")) as ArrayHandle.Shm
            child.waitForExit() shouldBe 0
            try {
                java.nio.file.Files.exists(shm.resolve(temporary.name())) shouldBe false
                java.nio.file.Files.exists(shm.resolve(persistent.name())) shouldBe true
                SharedArrays.inspect(persistent).persistent() shouldBe true
            } finally {
                SharedArrays.remove(persistent)
            }
        }
    }

    test("receive from a socket nobody serves is a clear error") {
        val dir = scratchDir("nosock")
        try {
            val e = io.kotest.assertions.throwables.shouldThrow<SegmentNotFoundException> {
                SharedArrays.receive(dir.toPath().resolve("none"))
            }
            e.message shouldBe "no array is served at ${dir.toPath().resolve("none")} (connect: No such file or directory); " +
                "start SharedArrays.serve(array, path) first"
        } finally {
            dir.deleteRecursively()
        }
    }
})
