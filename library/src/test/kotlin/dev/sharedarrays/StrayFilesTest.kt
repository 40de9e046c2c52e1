package dev.sharedarrays

import dev.sharedarrays.cli.Cli
import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.collections.shouldContainExactlyInAnyOrder
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.nio.file.Files
import java.nio.file.LinkOption
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * Files that are not ours, or ours under names we would not generate: ls and sweep skip what is
 * not ours and keep working; inspect and rm of a file that is not a segment answer at once with
 * a clear error; rm of a segment in use needs --force.
 */
class StrayFilesTest : FunSpec({
    fun python(vararg args: String) {
        val p = ProcessBuilder(listOf("python3", "-c") + args).redirectErrorStream(true).start()
        val out = p.inputStream.readBytes().decodeToString()
        p.waitFor(30, TimeUnit.SECONDS) shouldBe true
        withClue(out) { p.exitValue() shouldBe 0 }
    }

    fun sh(vararg cmd: String) = ProcessBuilder(*cmd).inheritIO().start().waitFor()

    test("valid segments named .hidden, 'x (copy)' and in unicode do not stop ls or sweep, which still remove the dead segments; another user's temp-named file stays") {
        val dir = scratchDir("stray")
        // a UTF-8 locale, so that the child JVMs can name the unicode file at all
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath, "SHARED_ARRAYS_AUTO_SWEEP" to "0", "LC_ALL" to "C.UTF-8")
        fun cli(vararg args: String): String = ChildJvm("cli", *args, env = env).use { c ->
            withClue(c.output()) { c.expectLine("EXIT ").toInt() shouldBe 0 }
            c.output()
        }
        val started = mutableListOf<ChildJvm>()
        try {
            val victim = ChildJvm("hold", "2", "10", env = env).also { started += it }
            val dead = (1..2).map { (ArrayHandle.parse(victim.expectLine("HANDLE ")) as ArrayHandle.Shm).name() }
            val live = ChildJvm("hold", "1", "10", env = env).also { started += it }
            val liveName = (ArrayHandle.parse(live.expectLine("HANDLE ")) as ArrayHandle.Shm).name()
            // copies of a segment of the process about to die, under names we would never generate
            python("""
import os, sys
d = sys.argv[1].encode()
data = open(os.path.join(d, sys.argv[2].encode()), 'rb').read()
for n in [b'.hidden', b'x (copy)', b'\xc3\xbcnic\xc3\xb8de-\xe5\x90\x8d']:
    open(os.path.join(d, n), 'wb').write(data)
open(os.path.join(d, b'junk (copy)'), 'wb').write(b'not a segment')
# named like the temporary file of a create that died, but another user's: not ours to remove
if os.geteuid() == 0:
    t = os.path.join(d, b'.sa-tmp-999999999-1-0000beef')
    open(t, 'wb').write(b'x')
    os.chown(t, 65534, 65534)
""", dir.absolutePath, dead[0])
            victim.kill()

            val ls = cli("ls")
            ls shouldContain dead[0]
            ls shouldContain ".hidden"
            ls shouldContain "x (copy)"
            ls shouldContain "6 segment(s)"
            cli("sweep", "--dry-run") shouldContain "would remove 5 segment(s)"
            cli("sweep") shouldContain "removed 5 segment(s)"
            val foreignTemp = ".sa-tmp-999999999-1-0000beef"
            if (dev.sharedarrays.internal.os.Libc.geteuid() == 0) {
                dir.list()!!.toList() shouldContainExactlyInAnyOrder listOf(liveName, "junk (copy)", foreignTemp)
            } else {
                println("skipped the other user's temporary file: chown needs root")
                dir.list()!!.toList() shouldContainExactlyInAnyOrder listOf(liveName, "junk (copy)")
            }
        } finally {
            started.forEach { it.close() }
            dir.deleteRecursively()
        }
    }

    context("inspect and rm of what is not a segment: a clear error in under 1 s, and the file stays") {
        val dir = scratchDir("bad")
        val real = dir.toPath().resolve("real")
        SharedArrays.create(F64.TYPE, longArrayOf(100_000), CreateOptions.defaults().file(real)).close()
        val bytes = Files.readAllBytes(real)
        sh("mkfifo", "$dir/fifo") shouldBe 0
        File(dir, "dir").mkdir()
        python("import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()", "$dir/sock")
        Files.createSymbolicLink(dir.toPath().resolve("link"), real)
        Files.write(dir.toPath().resolve("other"), bytes)
        sh("chown", "65534:65534", "$dir/other")
        // header and control block of a real segment with nothing allocated between them
        python("""
import sys
data = open(sys.argv[1], 'rb').read()
with open(sys.argv[2], 'wb') as f:
    f.write(data[:4096]); f.seek(len(data) - 4096); f.write(data[-4096:])
""", real.toString(), "$dir/sparse")
        val isRoot = dev.sharedarrays.internal.os.Libc.geteuid() == 0
        if (isRoot) sh("mknod", "$dir/device", "c", "1", "3") shouldBe 0

        val cases = linkedMapOf(
            "FIFO" to ("fifo" to "is a FIFO"),
            "directory" to ("dir" to "is a directory"),
            "socket" to ("sock" to "is a socket"),
            "device" to ("device" to "is a character device"),
            "symbolic link" to ("link" to "is a symbolic link"),
            "another user's file" to ("other" to "belongs to uid 65534"),
            "sparse file with a valid header and control block" to ("sparse" to "is sparse"),
        )
        val pool = Executors.newCachedThreadPool { r -> Thread(r).apply { isDaemon = true } }
        try { withData(cases) { (file, why) ->
            if (file == "device" && !isRoot) {
                println("skipped: mknod of a device needs root")
                return@withData
            }
            if (file == "other" && !isRoot) {
                println("skipped: chown to another user needs root")
                return@withData
            }
            val path = dir.toPath().resolve(file)
            for (command in listOf("inspect", "rm")) {
                val out = ByteArrayOutputStream()
                val t0 = System.nanoTime()
                // a hang fails the test instead of stopping the suite
                val status = pool.submit<Int> { Cli.run(arrayOf(command, "file://$path"), PrintStream(out), PrintStream(out)) }
                    .get(10, TimeUnit.SECONDS)
                val ms = (System.nanoTime() - t0) / 1_000_000
                val text = out.toString()
                withClue("$command $file: $text") {
                    status shouldBe 1
                    text shouldContain why
                    ms shouldBeLessThan 1000L
                }
                Files.exists(path, LinkOption.NOFOLLOW_LINKS) shouldBe true
            }
        } } finally {
            pool.shutdownNow()
            dir.deleteRecursively()
        }
    }

    test("rm of a segment a live process holds is refused naming its pid; rm --force removes it") {
        val dir = scratchDir("rm-live")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        ChildJvm("hold", "1", "10", env = env).use { holder ->
            try {
                val name = (ArrayHandle.parse(holder.expectLine("HANDLE ")) as ArrayHandle.Shm).name()
                val path = dir.toPath().resolve(name)
                val out = ByteArrayOutputStream()
                Cli.run(arrayOf("rm", "file://$path"), PrintStream(out), PrintStream(out)) shouldBe 1
                out.toString() shouldContain "refusing to remove $path: it is in use by pid ${holder.pid}"
                out.toString() shouldContain "rm --force"
                Files.exists(path) shouldBe true
                Cli.run(arrayOf("rm", "--force", "file://$path"), PrintStream(out), PrintStream(out)) shouldBe 0
                Files.exists(path) shouldBe false
            } finally {
                dir.deleteRecursively()
            }
        }
    }
})
