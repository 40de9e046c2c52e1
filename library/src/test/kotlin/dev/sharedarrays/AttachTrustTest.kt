package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import java.io.File
import java.io.RandomAccessFile
import java.net.StandardProtocolFamily
import java.net.UnixDomainSocketAddress
import java.nio.channels.ServerSocketChannel
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/** Attach refuses with [T] whose message has every one of [words], in under a second. */
private inline fun <reified T : Throwable> refused(handle: String, vararg words: String) {
    val t0 = System.nanoTime()
    val e = shouldThrow<T> { SharedArrays.attach(handle).close() }
    val ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
    withClue("${e.message} ($ms ms)") {
        ms shouldBeLessThan 1000
        for (w in words) e.message!! shouldContain w
    }
}

/**
 * Attach accepts only a regular, fully allocated file of this user (or a trusted uid), opened
 * without following links or blocking; memfd handles only a sealed memfd. Everything else is a
 * clear exception, fast, and never a crash. Rows that need root (chown, mknod) skip otherwise.
 */
class AttachTrustTest : FunSpec({
    val dir = scratchDir("trust")
    afterSpec { dir.deleteRecursively() }
    val root = ProcessBuilder("id", "-u").start().inputStream.bufferedReader().readText().trim() == "0"
    val nobody = 65534

    fun sh(vararg cmd: String) {
        val p = ProcessBuilder(*cmd).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText()
        check(p.waitFor() == 0) { "${cmd.joinToString(" ")} failed: $out" }
    }

    /** A valid segment's bytes: F64, 1000 elements (header page, 2 data pages, control page). */
    val segmentBytes: ByteArray = File(dir, "orig").let { f ->
        SharedArrays.create(F64.TYPE, longArrayOf(1000), CreateOptions.defaults().file(f.toPath())).use { a ->
            for (i in 0 until 1000L) a.setDouble(i, i.toDouble())
        }
        f.readBytes().also { f.delete() }
    }

    fun validCopy(name: String): File = File(dir, name).apply { writeBytes(segmentBytes) }

    test("a FIFO, a directory, a socket and a symbolic link are refused, saying what they are") {
        val fifo = File(dir, "fifo").also { sh("mkfifo", it.path) }
        refused<InvalidSegmentException>("file://$fifo", fifo.path, "is a FIFO", "segments are regular files")
        val sub = File(dir, "sub").also { it.mkdir() }
        refused<InvalidSegmentException>("file://$sub", sub.path, "is a directory")
        val sock = File(dir, "sock")
        ServerSocketChannel.open(StandardProtocolFamily.UNIX).use { server ->
            server.bind(UnixDomainSocketAddress.of(sock.toPath()))
            refused<InvalidSegmentException>("file://$sock", sock.path, "socket")
        }
        val target = validCopy("target")
        val link = File(dir, "link").also { Files.createSymbolicLink(it.toPath(), target.toPath()) }
        refused<InvalidSegmentException>("file://$link", link.path, "is a symbolic link")
        SharedArrays.attach("file://$target").use { it.getDouble(999) shouldBe 999.0 } // the target itself is fine
    }

    test("a device is refused (root: mknod)").config(enabled = root) {
        val dev = File(dir, "null").also { sh("mknod", it.path, "c", "1", "3") }
        refused<InvalidSegmentException>("file://$dev", dev.path, "is a character device")
    }

    test("a sparse file with a valid header and control block is refused; with SIMD kernels a child JVM does not crash") {
        val sparse = File(dir, "sparse")
        RandomAccessFile(sparse, "rw").use { f ->
            f.setLength(segmentBytes.size.toLong()) // all holes
            f.write(segmentBytes, 0, 4096)
            f.seek(segmentBytes.size - 4096L)
            f.write(segmentBytes, segmentBytes.size - 4096, 4096)
        }
        refused<InvalidSegmentException>("file://$sparse", sparse.path, "is sparse", "allocated")
        ChildJvm("attach-ops", "file://$sparse", jvmArgs = listOf("--add-modules", "jdk.incubator.vector")).use { c ->
            c.expectLine("REFUSED ") shouldStartWith "InvalidSegmentException"
            c.waitForExit() shouldBe 0
        }
    }

    test("another user's valid segment is refused unless AttachOptions trusts its uid (root: chown)").config(enabled = root) {
        val foreign = validCopy("foreign")
        sh("chown", "$nobody:$nobody", foreign.path)
        sh("chmod", "0666", foreign.path)
        refused<InvalidSegmentException>("file://$foreign", foreign.path, "belongs to uid $nobody", "trustUid($nobody)")
        SharedArrays.attach(ArrayHandle.parse("file://$foreign"), F64.TYPE, AttachOptions.defaults().trustUid(nobody)).use {
            it.getDouble(7) shouldBe 7.0
        }
    }

    test("a 0666 segment planted in the shm directory by another user is refused by name (root: chown)").config(enabled = root) {
        val name = "planted-" + ProcessHandle.current().pid()
        val planted = SharedArrays.shmDirectory().resolve(name).toFile()
        try {
            planted.writeBytes(segmentBytes)
            sh("chown", "$nobody:$nobody", planted.path)
            sh("chmod", "0666", planted.path)
            refused<InvalidSegmentException>("shm://$name", planted.path, "belongs to uid $nobody", "not to this user")
        } finally {
            planted.delete()
        }
    }

    test("another user's default file directory is refused for create and attach, naming owner and mode (root: chown)")
        .config(enabled = root) {
            val tmp = File(dir, "tmpdir").also { it.mkdir() }
            val shared = File(tmp, "sharedarrays").also { it.mkdir() }
            val victim = File(shared, "grid").also { it.writeBytes(segmentBytes) }
            sh("chown", "$nobody:$nobody", shared.path)
            sh("chmod", "0777", shared.path)
            for (args in listOf(arrayOf("create"), arrayOf("attach", "file://$victim"))) {
                ChildJvm("default-file", *args, jvmArgs = listOf("-Djava.io.tmpdir=$tmp")).use { c ->
                    val line = c.expectLine("")
                    withClue(line) {
                        line shouldStartWith (if (args[0] == "create") "ERROR SharedArrayException" else "ERROR InvalidSegmentException")
                        line shouldContain "$shared belongs to uid $nobody (mode 0777), not to this user"
                        line shouldContain "could replace the arrays in it"
                    }
                }
            }
            // the same directory with mode 0777 but this user's: refused for its write bits
            sh("chown", "0:0", shared.path)
            ChildJvm("default-file", "create", jvmArgs = listOf("-Djava.io.tmpdir=$tmp")).use { c ->
                c.expectLine("ERROR SharedArrayException") shouldContain "has mode 0777: other users may write to it"
            }
            // made fresh, it is private and works
            shared.deleteRecursively()
            ChildJvm("default-file", "create", jvmArgs = listOf("-Djava.io.tmpdir=$tmp")).use { c -> c.expectLine("OK") }
            Files.getPosixFilePermissions(shared.toPath()).map { it.name }.toSet() shouldBe
                setOf("OWNER_READ", "OWNER_WRITE", "OWNER_EXECUTE")
        }

    test("memfd:// of a descriptor that is not a sealed memfd is refused: a plain file, an unsealed memfd") {
        val plain = validCopy("plain")
        val script = """
            import os, sys, time
            fd = os.open(sys.argv[1], os.O_RDWR)
            m = os.memfd_create('unsealed', os.MFD_ALLOW_SEALING)
            os.write(m, open(sys.argv[1], 'rb').read())
            print(fd, m, flush=True)
            time.sleep(60)
        """.trimIndent()
        val py = ProcessBuilder("python3", "-c", script, plain.path).start()
        try {
            val (fileFd, memfd) = py.inputStream.bufferedReader().readLine().split(" ")
            refused<InvalidSegmentException>("memfd://${py.pid()}/$fileFd", "a file that cannot be sealed", "not a sealed memfd")
            refused<InvalidSegmentException>("memfd://${py.pid()}/$memfd", "is a memfd without the seals", "not a sealed memfd")
        } finally {
            py.destroyForcibly().waitFor()
        }
    }

    test("a memfd array still attaches by /proc: it is sealed") {
        SharedArrays.create(F64.TYPE, longArrayOf(10), CreateOptions.defaults().backend(Backend.MEMFD)).use { a ->
            a.setDouble(3, 1.5)
            ChildJvm("attach", a.handle().toString(), "1").use { c ->
                c.expectLine("SEEN ")
                c.expectLine("WROTE")
            }
        }
    }
})
