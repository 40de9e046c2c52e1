package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.File
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermissions
import java.util.concurrent.TimeUnit

/**
 * Sweep removes a file named like a create's temporary file (`.sa-tmp-<pid>-<start>-<hex>`)
 * of a dead creator only if it provably is a segment in the making: one link, no flock held,
 * and empty or whole pages of which the first is exactly a header page. Impostors under such
 * names (a text file, a hard link to a user's file, a copy of /etc/passwd, a .npy file numpy
 * wrote of exactly one page, one whose header numpy padded to 4096 bytes) stay, through `sharedarrays sweep` and through a create's auto-sweep; the
 * temporary file of a create SIGKILLed in the middle still goes. Runs in a private directory
 * under /dev/shm (tmpfs: reserving 64 MiB takes long enough to be killed in the middle).
 */
class SweepImpostorTest : FunSpec({
    fun python(vararg args: String) {
        val p = ProcessBuilder(listOf("python3", "-c") + args).redirectErrorStream(true).start()
        val out = p.inputStream.readBytes().decodeToString()
        p.waitFor(30, TimeUnit.SECONDS) shouldBe true
        withClue(out) { p.exitValue() shouldBe 0 }
    }

    /** A new directory of this user's alone (0700) under /dev/shm, named after the prefix, this JVM and the clock. */
    fun privateShmDir(prefix: String): File =
        Files.createDirectory(File("/dev/shm/$prefix-${ProcessHandle.current().pid()}-${System.nanoTime()}").toPath(),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))).toFile()

    /** SIGKILLs create loops until one leaves a temporary file behind; returns it. */
    fun killedCreate(dir: File): File {
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath, "SHARED_ARRAYS_AUTO_SWEEP" to "0")
        val before = dir.list()!!.toSet()
        repeat(40) { attempt ->
            ChildJvm("create-loop", (8L shl 20).toString(), env = env).use { c ->
                c.expectLine("LOOPING")
                Thread.sleep(200L + (attempt * 37L) % 300)
                c.kill()
            }
            // killed in the moment between link and unlink, its temporary file has a second link: another try
            val left = dir.listFiles()!!.filter {
                it.name.startsWith(".sa-tmp-") && it.name !in before && Files.getAttribute(it.toPath(), "unix:nlink") == 1
            }
            if (left.isNotEmpty()) {
                println("killed create: attempt ${attempt + 1} left ${left.map { "${it.name} (${it.length()} bytes)" }}")
                return left.single()
            }
        }
        throw AssertionError("40 create loops SIGKILLed, none left a temporary file")
    }

    test("impostors named like a dead create's temporary file survive sweep and auto-sweep; a SIGKILLed create's file is removed") {
        val dir = privateShmDir("sa-impostor")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        try {
            val dead = ".sa-tmp-999999999-1-"
            val userEmpty = File(dir, "user-empty.dat").apply { writeBytes(ByteArray(0)) }
            val text = File(dir, dead + "00000001").apply { writeText("not a segment\n") }
            val passwd = File(dir, dead + "00000002").apply { writeBytes(File("/etc/passwd").readBytes()) }
            val hardLink = File(dir, dead + "00000003").also { Files.createLink(it.toPath(), userEmpty.toPath()) }
            val numpyPage = File(dir, dead + "00000004")
            // 128 bytes of header and 496 float64: exactly one page, starting with the .npy magic
            python("import numpy as np, sys\nwith open(sys.argv[1], 'wb') as f: np.save(f, np.arange(496.0))", numpyPage.path)
            numpyPage.length() shouldBe 4096L
            // a structured dtype of 239 fields: numpy pads its header to exactly 4096 bytes, so the file starts with
            // the segment mark and is whole pages; only the header page's dict tells it from ours
            val numpyLongHeader = File(dir, dead + "00000005")
            python("import numpy as np, sys\nwith open(sys.argv[1], 'wb') as f: np.save(f, np.zeros(512, np.dtype([(f'f{i}', '<f8') for i in range(239)])))",
                numpyLongHeader.path)
            numpyLongHeader.length() % 4096 shouldBe 0L
            numpyLongHeader.readBytes().copyOfRange(8, 10).toList() shouldBe listOf(0xF6.toByte(), 0x0F.toByte()) // HEADER_LEN 4086
            val impostors = listOf(text, passwd, hardLink, numpyPage, numpyLongHeader).associateWith { it.readBytes() }
            fun impostorsIntact() {
                for ((f, bytes) in impostors) {
                    withClue("${f.name} was removed or changed") { f.exists() shouldBe true; f.readBytes().contentEquals(bytes) shouldBe true }
                }
                userEmpty.exists() shouldBe true
            }

            // auto-sweep: another process's create sweeps in the background
            val first = killedCreate(dir)
            ChildJvm("create-sweeping", env = env).use { c ->
                c.send("create")
                c.expectLine("CREATED")
                val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20)
                while (first.exists() && System.nanoTime() < deadline) Thread.sleep(50)
                c.send("exit")
                c.waitForExit()
            }
            withClue("the auto-sweep did not remove ${first.name}") { first.exists() shouldBe false }
            impostorsIntact()

            // sharedarrays sweep
            val second = killedCreate(dir)
            ChildJvm("cli", "sweep", env = env).use { c ->
                c.expectLine("EXIT ").toInt() shouldBe 0
                c.output() shouldContain second.name
            }
            second.exists() shouldBe false
            impostorsIntact()
            dir.list()!!.filter { it.startsWith(".sa-tmp-") }.sorted() shouldBe impostors.keys.map { it.name }.sorted()
        } finally {
            dir.deleteRecursively()
        }
    }

    test("one sweep removes a create killed between its link and its unlink: the segment, then its temporary name") {
        val dir = privateShmDir("sa-linked")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath, "SHARED_ARRAYS_AUTO_SWEEP" to "0")
        try {
            val segment = File(dir, "linked")
            ChildJvm("agent", env = env).use { c ->
                c.send("create linked OWNER")
                c.expectLine("CREATED ")
                c.kill()
            }
            // the state such a create leaves: its temporary name is a second link of the segment
            val temp = File(dir, ".sa-tmp-999999999-1-00000012")
            Files.createLink(temp.toPath(), segment.toPath())
            // a dry run counts the links as the sweep would: the temporary name's other one is the segment it would remove
            ChildJvm("cli", "sweep", "--dry-run", env = env).use { c ->
                c.expectLine("EXIT ").toInt() shouldBe 0
                c.output().lines().filter { it.startsWith("would remove /") } shouldBe
                    listOf("would remove ${segment.path}", "would remove ${temp.path}")
            }
            segment.exists() shouldBe true
            temp.exists() shouldBe true
            ChildJvm("cli", "sweep", env = env).use { c ->
                c.expectLine("EXIT ").toInt() shouldBe 0
                c.output().lines().filter { it.startsWith("removed /") } shouldBe listOf("removed ${segment.path}", "removed ${temp.path}")
            }
            dir.list()!!.toList() shouldBe emptyList()
        } finally {
            dir.deleteRecursively()
        }
    }
})
