package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import java.io.File
import java.nio.file.Files
import java.nio.file.LinkOption
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * Lifetimes with real processes: SHARED is removed by the last process to close it, whoever
 * created it, and by the next create's background sweep once its processes all died; an
 * owner's close removes only the file it created; a copied file has its own lock.
 */
class LifetimeTest : FunSpec({
    fun exists(f: File) = Files.exists(f.toPath(), LinkOption.NOFOLLOW_LINKS)
    fun inode(f: File) = Files.getAttribute(f.toPath(), "unix:ino", LinkOption.NOFOLLOW_LINKS)

    test("SHARED: creator and two attachers close in random orders; the name goes exactly when the last closes (100 rounds)") {
        val dir = scratchDir("shared")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        val agents = (1..3).map { ChildJvm("agent", env = env) }
        try {
            val random = Random(9)
            for (round in 1..100) {
                val name = "shared-$round"
                val file = File(dir, name)
                val creator = agents[round % 3]
                creator.send("create $name SHARED")
                creator.expectLine("CREATED ")
                agents.filter { it !== creator }.forEach { it.send("attach $name"); it.expectLine("ATTACHED") }
                val order = agents.shuffled(random)
                order.forEachIndexed { i, agent ->
                    agent.send("close")
                    agent.expectLine("CLOSED")
                    val last = i == order.lastIndex
                    withClue("round $round, ${i + 1} of 3 closed (creator ${creator.pid}, closer ${agent.pid})") {
                        exists(file) shouldBe !last
                    }
                }
            }
            dir.list()!!.toList() shouldBe emptyList()
        } finally {
            agents.forEach { it.close() }
            dir.deleteRecursively()
        }
    }

    test("SHARED: all three SIGKILLed; another process's create removes it once its rate limit lets it sweep") {
        val dir = scratchDir("shared-killed")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        val agents = (1..3).map { ChildJvm("agent", env = env) }
        val creating = ChildJvm("create-sweeping", env = env)
        try {
            // this process's first create sweeps now: the next one may sweep only 5 s later
            creating.send("create")
            creating.expectLine("CREATED")
            val firstSweep = System.nanoTime()
            val file = File(dir, "doomed")
            agents[0].send("create doomed SHARED")
            agents[0].expectLine("CREATED ")
            agents.drop(1).forEach { it.send("attach doomed"); it.expectLine("ATTACHED") }
            agents.forEach { it.kill() }
            exists(file) shouldBe true

            creating.send("create")
            creating.expectLine("CREATED")
            Thread.sleep(1000)
            withClue("a create within the rate-limit period starts no sweep") { exists(file) shouldBe true }

            Thread.sleep(maxOf(0, 5200 - (System.nanoTime() - firstSweep) / 1_000_000))
            creating.send("create")
            creating.expectLine("CREATED")
            val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
            while (exists(file) && System.nanoTime() < deadline) Thread.sleep(10)
            withClue("the background sweep of the next create removed it") { exists(file) shouldBe false }
        } finally {
            agents.forEach { it.close() }
            creating.close()
            dir.deleteRecursively()
        }
    }

    test("OWNER: the owner's close after rm and a re-create of the name by another process leaves the new segment alone") {
        val dir = scratchDir("owner")
        val env = mapOf("SHARED_ARRAYS_DIR" to dir.absolutePath)
        val first = ChildJvm("agent", env = env)
        val second = ChildJvm("agent", env = env)
        try {
            val file = File(dir, "frames")
            first.send("create frames OWNER")
            first.expectLine("CREATED ")
            ChildJvm("cli", "rm", "--force", "frames", env = env).use { it.expectLine("EXIT ").toInt() shouldBe 0 }
            exists(file) shouldBe false
            second.send("create frames OWNER")
            second.expectLine("CREATED ")
            val recreated = inode(file)
            first.send("close")
            first.expectLine("CLOSED")
            withClue("the first owner's close must not unlink the second owner's frames") {
                exists(file) shouldBe true
                inode(file) shouldBe recreated
            }
            second.send("close")
            second.expectLine("CLOSED")
            exists(file) shouldBe false
        } finally {
            first.close()
            second.close()
            dir.deleteRecursively()
        }
    }

    test("a cp of a segment attached beside its original in one JVM has its own lock: nothing waits") {
        val shm = SharedArrays.shmDirectory()
        val copyName = "sa-test-copy-" + ProcessHandle.current().pid()
        val copyFile = shm.resolve(copyName)
        val pool = Executors.newSingleThreadExecutor()
        SharedArrays.create(F64.TYPE, longArrayOf(100), CreateOptions.defaults().backend(Backend.SHM)).use { original ->
            try {
                Files.write(copyFile, Files.readAllBytes(original.path().get()))
                SharedArrays.attach("shm://$copyName").use { copy ->
                    copy.id() shouldBe original.id()
                    // interleaved read holds: each must claim and free its own file's reader slot
                    val r1 = original.lockRead()
                    val r2 = copy.lockRead()
                    r1.close()
                    r2.close()
                    original.lockStatus().readerPids() shouldBe emptyList()
                    copy.lockStatus().readerPids() shouldBe emptyList()

                    original.lockWrite().use {
                        for (target in listOf(copy.handle().toString(), "shm://$copyName")) {
                            ChildJvm("lock-write-timed", target).use { child ->
                                child.expectLine("LOCKED ", timeoutSeconds = 20).toLong() shouldBeLessThan 1000L
                            }
                        }
                        // another thread of this JVM takes the copy's write lock while this one holds the original's
                        val t0 = System.nanoTime()
                        pool.submit { copy.lockWrite().use { } }.get(5, TimeUnit.SECONDS)
                        (System.nanoTime() - t0) / 1_000_000 shouldBeLessThan 1000L
                    }
                    // and the original's lock is free for another process once released
                    ChildJvm("lock-write-timed", original.handle().toString()).use { child ->
                        child.expectLine("LOCKED ", timeoutSeconds = 20).toLong() shouldBeLessThan 1000L
                    }
                }
            } finally {
                pool.shutdownNow()
                Files.deleteIfExists(copyFile)
            }
        }
    }
})
