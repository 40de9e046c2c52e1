package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.Patterns
import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldStartWith
import java.io.File
import java.nio.file.Files
import java.nio.file.LinkOption
import java.nio.file.attribute.PosixFilePermissions
import java.util.concurrent.TimeUnit

/**
 * Who gets a served descriptor: the socket is 0600 whatever the umask, and a peer of another
 * uid (checked with SO_PEERCRED) gets nothing even when it can connect.
 */
class HandleServerTest : FunSpec({
    val n = 1000L

    /** Connects as uid 65534 and reads one message: `DENIED ...` or `CONNECTED uid=<u> bytes=<b> fds=<f>`. */
    val peerScript = """
        import array, os, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect(sys.argv[1])
        except PermissionError as e:
            print("DENIED uid=%d %s" % (os.geteuid(), e))
            sys.exit(0)
        data, anc, flags, addr = s.recvmsg(4096, socket.CMSG_SPACE(16))
        fds = []
        for level, kind, d in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += array.array("i", d[:len(d) - len(d) % 4])
        print("CONNECTED uid=%d bytes=%d fds=%d" % (os.geteuid(), len(data), len(fds)))
    """.trimIndent()

    fun run(vararg cmd: String): Pair<Int, String> {
        val p = ProcessBuilder(*cmd).directory(File("/")).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly()
            throw AssertionError("${cmd.toList()} still runs after 30 s; output: $out")
        }
        return p.exitValue() to out.trim()
    }

    /** Why the other-user half cannot run here, or null. */
    fun otherUserSkipReason(python: File?): String? = when {
        run("id", "-u").second != "0" -> "not root"
        run("sh", "-c", "command -v setpriv").first != 0 -> "setpriv is missing"
        python == null -> "no system python3 that another user can run"
        else -> null
    }

    test("a server started at umask 000: socket 0600; a peer of another uid gets nothing, even past the mode; the same uid receives") {
        val dir = scratchDir("serve")
        val socket = File(dir, "s")
        try {
            ChildJvm("create", "memfd", F64.TYPE.name(), n.toString(), "4", socket.absolutePath, shell = "umask 000").use { server ->
                val handle = server.expectLine("HANDLE ")
                File("/proc/${server.pid}/status").readLines().first { it.startsWith("Umask:") }
                    .substringAfter(":").trim() shouldBe "0000"
                PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.toPath(), LinkOption.NOFOLLOW_LINKS)) shouldBe
                    "rw-------"
                SharedArrays.receive(socket.toPath()).use { a -> Patterns.checksum(a) shouldBe Patterns.expected(n, 4) }

                val python = listOf("/usr/bin/python3", "/usr/local/bin/python3").map(::File).firstOrNull { it.canExecute() }
                val why = otherUserSkipReason(python)
                if (why != null) {
                    println("SKIPPED the other-user half of the HandleServer test: $why")
                } else {
                    // let uid 65534 reach the directory; the socket's own mode is what keeps it out
                    for (d in listOf(dir, dir.parentFile)) {
                        Files.setPosixFilePermissions(d.toPath(), PosixFilePermissions.fromString("rwxr-xr-x"))
                    }
                    fun asNobody(): String = run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        python!!.path, "-c", peerScript, socket.absolutePath).second
                    val denied = asNobody()
                    println("uid 65534 at mode 0600: $denied")
                    denied shouldStartWith "DENIED uid=65534"
                    // root passes any mode, and a user may widen it: the server's uid check still holds
                    Files.setPosixFilePermissions(socket.toPath(), PosixFilePermissions.fromString("rw-rw-rw-"))
                    val refused = asNobody()
                    println("uid 65534 at mode 0666: $refused")
                    refused shouldBe "CONNECTED uid=65534 bytes=0 fds=0"
                    SharedArrays.receive(socket.toPath()).use { a -> Patterns.checksum(a) shouldBe Patterns.expected(n, 4) }
                }
                server.output() shouldBe "HANDLE $handle\n"
                server.send("exit")
                server.waitForExit() shouldBe 0
            }
            socket.exists() shouldBe false
        } finally {
            dir.deleteRecursively()
        }
    }
})
