package dev.sharedarrays

import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.File
import java.io.UncheckedIOException
import java.util.Collections
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong

/**
 * load and save open the path without blocking and check the descriptor they got, never the
 * name: a FIFO swapped in at the path between a check and an open cannot hang them. A python
 * process renames a FIFO, a valid .npy file and symbolic links (to either) into place in a
 * loop while this JVM loads the path; the FIFOs are hard links of a few kept ones, so that a
 * load blocked on one (the old code) is released when the swapping ends.
 */
class LoadRaceTest : FunSpec({
    val swapper = """
import os, sys, time
path, staging, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
npy = os.path.join(staging, 'master.npy')
fifos = [os.path.join(staging, 'fifo%d' % i) for i in range(4)]
for f in fifos:
    os.mkfifo(f)
tmp = os.path.join(staging, 'tmp')
end = time.time() + seconds
n = 0
while time.time() < end:
    k = n % 4
    if k == 0:
        os.link(fifos[n % len(fifos)], tmp)
    elif k == 1:
        os.link(npy, tmp)
    elif k == 2:
        os.symlink(npy, tmp)
    else:
        os.symlink(fifos[n % len(fifos)], tmp)
    os.rename(tmp, path)
    n += 1
# a reader blocked in open() on one of the FIFOs (the old code) gets EOF now
for f in fifos:
    try:
        os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass
print('SWAPS', n, flush=True)
"""

    test("load(path) while a FIFO, a .npy file and symbolic links are swapped in at the path for 15 s: no call blocks, only documented exceptions") {
        val dir = scratchDir("load-race")
        val staging = File(dir, "staging").apply { mkdirs() }
        val path = File(dir, "a.npy")
        SharedArrays.create(F64.TYPE, longArrayOf(3, 4), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
            for (i in 0 until 12) a.setLong(i.toLong(), i.toLong())
            a.save(File(staging, "master.npy").toPath())
        }
        val py = ProcessBuilder("python3", "-c", swapper, path.path, staging.path, "15").redirectErrorStream(true).start()
        val calls = AtomicLong()
        val loaded = AtomicLong()
        val refused = AtomicLong()
        val maxNanos = AtomicLong()
        val callStart = AtomicLong() // start of the call in progress, 0 between calls
        val undocumented = Collections.synchronizedList(mutableListOf<Throwable>())
        val stop = java.util.concurrent.atomic.AtomicBoolean()
        val loader = Thread.ofPlatform().daemon().name("load-race").start {
            while (!stop.get()) {
                val t0 = System.nanoTime()
                callStart.set(t0)
                try {
                    SharedArrays.load(path.toPath()).use { if (it.getLong(11) == 11L) loaded.incrementAndGet() }
                } catch (e: NpyFormatException) {
                    refused.incrementAndGet() // a FIFO, or a symbolic link to one
                } catch (e: UncheckedIOException) {
                    refused.incrementAndGet()
                } catch (t: Throwable) {
                    undocumented += t
                }
                callStart.set(0)
                calls.incrementAndGet()
                maxNanos.accumulateAndGet(System.nanoTime() - t0, ::maxOf)
            }
        }
        var hung = 0L
        try {
            val end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15)
            while (System.nanoTime() < end) {
                Thread.sleep(100)
                val s = callStart.get()
                if (s != 0L && System.nanoTime() - s > TimeUnit.SECONDS.toNanos(5)) {
                    hung = (System.nanoTime() - s) / 1_000_000
                    break
                }
            }
        } finally {
            stop.set(true)
            // the swapper ends by itself and then releases a load blocked on its FIFOs
            py.waitFor(60, TimeUnit.SECONDS)
            if (py.isAlive) py.destroyForcibly().waitFor()
            loader.join(TimeUnit.SECONDS.toMillis(10))
        }
        val out = py.inputStream.readBytes().decodeToString()
        println("load race: ${calls.get()} calls, ${loaded.get()} loaded, ${refused.get()} refused, " +
            "longest ${maxNanos.get() / 1_000} µs; swapper: ${out.trim()}")
        try {
            withClue("a load(path) call was blocked for $hung ms (a FIFO opened after a check of the name)") { hung shouldBe 0L }
            loader.isAlive shouldBe false
            undocumented.map { it.toString() } shouldBe emptyList()
            maxNanos.get() shouldBeLessThan TimeUnit.SECONDS.toNanos(5)
            withClue(out) { out shouldContain "SWAPS" }
            loaded.get().toInt() shouldBeGreaterThan 0
            refused.get().toInt() shouldBeGreaterThan 0
        } finally {
            dir.deleteRecursively()
        }
    }

    test("load and save of a FIFO, and save through a FIFO's symbolic link, refuse at once saying what it is") {
        val dir = scratchDir("fifo-save")
        try {
            val fifo = File(dir, "fifo")
            ProcessBuilder("mkfifo", fifo.path).start().waitFor() shouldBe 0
            val link = File(dir, "link.npy").also { java.nio.file.Files.createSymbolicLink(it.toPath(), fifo.toPath()) }
            SharedArrays.create(F64.TYPE, longArrayOf(4), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
                for (target in listOf(fifo, link)) {
                    val save = CompletableFuture.supplyAsync { runCatching { a.save(target.toPath()) }.exceptionOrNull() }
                    val failure = try {
                        save.get(5, TimeUnit.SECONDS)
                    } catch (e: TimeoutException) {
                        // release the writer blocked in open(): a reader that opens without blocking
                        ProcessBuilder("python3", "-c", "import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK))",
                            fifo.path).start().waitFor()
                        throw AssertionError("save($target) blocked for 5 s on a FIFO")
                    }
                    (failure is UncheckedIOException) shouldBe true
                    failure!!.message shouldContain target.path
                    failure.message shouldContain "a FIFO"
                    failure.message shouldContain "not a regular file"
                }
                val load = CompletableFuture.supplyAsync { runCatching { SharedArrays.load(link.toPath()) }.exceptionOrNull() }
                val refused = load.get(5, TimeUnit.SECONDS)
                (refused is NpyFormatException) shouldBe true
                refused!!.message shouldBe "file $link is not a regular file (a FIFO); a .npy file is"
            }
            fifo.exists() shouldBe true
        } finally {
            dir.deleteRecursively()
        }
        val missing = shouldThrow<UncheckedIOException> { SharedArrays.load(File(dir, "gone.npy").toPath()) }
        (missing.cause is java.nio.file.NoSuchFileException) shouldBe true
    }
})
