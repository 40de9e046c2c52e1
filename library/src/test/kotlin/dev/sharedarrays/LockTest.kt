package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.shouldNotBe
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/** The cross-process readers-writer lock and atomics, with real child JVMs. */
class LockTest : FunSpec({

    fun waitUntil(what: String, seconds: Long = 30, cond: () -> Boolean) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds)
        while (!cond()) {
            if (System.nanoTime() > deadline) throw AssertionError("timed out waiting until $what")
            Thread.sleep(0, 100_000)
        }
    }

    test("a child SIGKILLed while it holds the write lock in a storm of fills: the lock is taken over within 1 s, the next fill is complete") {
        SharedArrays.create(F64.TYPE, 4_000_000L).use { a ->
            // the kill must land while the child holds the lock; it almost always does, retry if not
            var killedHolding = false
            for (attempt in 1..5) {
                ChildJvm("lock-storm", a.handle().toString()).use { child ->
                    child.expectLine("STORM")
                    waitUntil("child ${child.pid} holds the write lock") { a.lockStatus().writerPid() == child.pid }
                    child.kill()
                    killedHolding = a.lockStatus().writerPid() == child.pid
                }
                if (killedHolding) break
            }
            killedHolding shouldBe true
            val before = a.lockStatus().recoveries()
            val t0 = System.nanoTime()
            a.lockWrite().use {
                val tookMs = (System.nanoTime() - t0) / 1_000_000
                println("write lock taken over from a dead holder in $tookMs ms")
                tookMs shouldBeLessThan 1000L
                a.fill(-3.5)
            }
            a.lockStatus().recoveries() shouldBe before + 1
            a.lockStatus().writerPid() shouldBe 0L
            val values = a.toDoubleArray()
            values.count { it != -3.5 } shouldBe 0
        }
    }

    test("a writer SIGKILLed while a waiting process has run out of descriptors (/proc unreadable): taken over within 1 s") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            // a bounded limit keeps "open until EMFILE" quick wherever the hard limit is huge
            ChildJvm("lock-at-fd-limit", a.handle().toString(), shell = "ulimit -n 2048").use { waiter ->
                waiter.expectLine("READY")
                ChildJvm("hold-write", a.handle().toString()).use { writer ->
                    writer.expectLine("WRITING")
                    a.lockStatus().writerPid() shouldBe writer.pid
                    writer.kill()
                }
                a.lockStatus().writerPid() shouldNotBe 0L
                waiter.send("go")
                val took = waiter.expectLine("TOOK ", 20).split(" ")
                println("write lock taken over at the fd limit (${took[2]} descriptors opened, /proc readable: ${took[4]}) in ${took[0]} ms")
                took[4] shouldBe "false"
                took[2].toInt() shouldBeGreaterThan 0
                took[0].toLong() shouldBeLessThan 1000L
                waiter.waitForExit() shouldBe 0
            }
            a.lockStatus().writerPid() shouldBe 0L
            a.lockStatus().recoveries() shouldBe 1L
        }
    }

    test("a child SIGKILLed while it holds the read lock: its hold is cleared and a writer gets in within 1 s") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            ChildJvm("hold-read", a.handle().toString()).use { child ->
                child.expectLine("READING")
                a.lockStatus().readerPids() shouldBe listOf(child.pid)
                child.kill()
            }
            val t0 = System.nanoTime()
            a.fill(2.0)
            (System.nanoTime() - t0) / 1_000_000 shouldBeLessThan 1000L
            a.lockStatus().readerPids() shouldBe emptyList()
            a.sum() shouldBe 2000.0
        }
    }

    test("a writer in another process waits while this process reads") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            val held = a.lockRead()
            ChildJvm("fill-when-free", a.handle().toString(), "9").use { child ->
                try {
                    child.expectLine("WAITING")
                    waitUntil("the child claims the writer word") { a.lockStatus().writerPid() == child.pid }
                    Thread.sleep(300)
                    a.sum() shouldBe 0.0
                    child.output().contains("FILLED") shouldBe false
                } finally {
                    held.close()
                }
                child.expectLine("FILLED")
                child.waitForExit() shouldBe 0
            }
            a.sum() shouldBe 9000.0
        }
    }

    test("three threads read while another process fills in a loop: no read lands inside a fill") {
        SharedArrays.create(F64.TYPE, 200_000L).use { a ->
            val n = a.size()
            ChildJvm("paced-fills", a.handle().toString()).use { child ->
                child.expectLine("FILLING")
                waitUntil("the first fill") { a.getDouble(n - 1) != 0.0 }
                val pool = Executors.newFixedThreadPool(3)
                try {
                    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2)
                    // per thread: reads, torn reads, distinct values seen
                    val results = (1..3).map {
                        pool.submit<Triple<Int, Int, Int>> {
                            var reads = 0
                            var torn = 0
                            val seen = HashSet<Double>()
                            while (System.nanoTime() < deadline) {
                                a.lockRead().use {
                                    // a fill runs from the first element to the last: inside one, these differ
                                    val first = a.getDouble(0)
                                    if (a.getDouble(n / 2) != first || a.getDouble(n - 1) != first) torn++
                                    seen.add(first)
                                }
                                reads++
                            }
                            Triple(reads, torn, seen.size)
                        }
                    }.map { it.get(60, TimeUnit.SECONDS) }
                    println("reads while another process fills: $results (reads, torn, distinct values)")
                    results.sumOf { it.second } shouldBe 0
                    for (r in results) {
                        r.first shouldBeGreaterThan 20
                        r.third shouldBeGreaterThan 2 // fills ran between this thread's reads
                    }
                } finally {
                    pool.shutdownNow()
                }
            }
        }
    }

    test("4 JVMs x 200k locked increments of one element and 4 x 200k getAndAdd on another: both totals exact") {
        SharedArrays.create(I64.TYPE, 2L).use { a ->
            val n = 200_000
            val children = (1..4).map { ChildJvm("count", a.handle().toString(), n.toString()) }
            try {
                for (c in children) {
                    c.expectLine("DONE", 300)
                    c.waitForExit() shouldBe 0
                }
            } finally {
                children.forEach { it.close() }
            }
            a.getLong(0) shouldBe 4L * n
            a.getLong(1) shouldBe 4L * n
        }
    }

    test("process A loops x += y while process B loops y += x for 10 s: no deadlock, both finish") {
        SharedArrays.create(I64.TYPE, 10_000L).use { x ->
            SharedArrays.create(I64.TYPE, 10_000L).use { y ->
                x.fill(1L)
                y.fill(1L)
                val a = ChildJvm("add-loop", x.handle().toString(), y.handle().toString(), "10")
                val b = ChildJvm("add-loop", y.handle().toString(), x.handle().toString(), "10")
                try {
                    val na = a.expectLine("ITERATIONS", 60).toLong()
                    val nb = b.expectLine("ITERATIONS", 60).toLong()
                    println("x += y: $na iterations, y += x: $nb iterations in 10 s")
                    na shouldBeGreaterThan 0L
                    nb shouldBeGreaterThan 0L
                    a.waitForExit() shouldBe 0
                    b.waitForExit() shouldBe 0
                } finally {
                    a.close()
                    b.close()
                }
                x.lockStatus() shouldBe LockStatus(0, emptyList(), x.lockStatus().recoveries())
            }
        }
    }

    test("threads of one process: locked increments are exact, the lock is reentrant, a read lock cannot be upgraded") {
        SharedArrays.create(I64.TYPE, 3L).use { a ->
            val pool = Executors.newFixedThreadPool(4)
            val start = CountDownLatch(1)
            try {
                val jobs = (1..4).map {
                    pool.submit {
                        start.await()
                        repeat(50_000) {
                            a.withWriteLock { a.setLong(0, a.getLong(0) + 1) }
                            a.getAndAdd(1, 2)
                            a.withReadLock { a.getLong(0) }
                        }
                    }
                }
                start.countDown()
                jobs.forEach { it.get(120, TimeUnit.SECONDS) }
            } finally {
                pool.shutdownNow()
            }
            a.getLong(0) shouldBe 200_000L
            a.getLong(1) shouldBe 400_000L
            a.withWriteLock {
                a.withWriteLock { a.fill(5L) }
                a.withReadLock { a.sum() shouldBe 15.0 }
                a.add(a)
            }
            a.sum() shouldBe 30.0
            a.lockStatus() shouldBe LockStatus(0, emptyList(), 0)
            a.lockRead().use {
                shouldThrow<IllegalStateException> { a.fill(1L) }.message shouldBe "cannot take the write lock of " +
                    a.handle() + ": this thread holds its read lock, and a read lock cannot be upgraded; take the write lock first"
                a.lockStatus().readerPids() shouldBe listOf(ProcessHandle.current().pid())
            }
            a.lockStatus().readerPids() shouldBe emptyList()
        }
    }

    test("atomics: compareAndSet, getAndAdd and getAndSet on I64 and I32; other dtypes and out-of-range values refused") {
        SharedArrays.create(I64.TYPE, 4L).use { a ->
            a.compareAndSet(2, 0, Long.MAX_VALUE) shouldBe true
            a.compareAndSet(2, 0, 5) shouldBe false
            a.getAndAdd(2, 1) shouldBe Long.MAX_VALUE
            a.getLong(2) shouldBe Long.MIN_VALUE
            a.getAndSet(2, 7) shouldBe Long.MIN_VALUE
            a.getVolatile(2) shouldBe 7L
            a.slice(0, 1, 4, 2).getAndAdd(1, 10) shouldBe 0L
            a.getLong(3) shouldBe 10L
        }
        SharedArrays.create(I32.TYPE, 4L).use { a ->
            a.setVolatile(1, Int.MAX_VALUE.toLong())
            a.getAndAdd(1, 1) shouldBe Int.MAX_VALUE.toLong()
            a.getLong(1) shouldBe Int.MIN_VALUE.toLong()
            a.compareAndSet(1, Int.MIN_VALUE.toLong(), -1) shouldBe true
            a.getAndSet(1, 3) shouldBe -1L
            shouldThrow<IllegalArgumentException> { a.getAndSet(0, 1L shl 31) }.message shouldBe
                "getAndSet: 2147483648 is out of range for I32 (-2147483648 to 2147483647)"
            shouldThrow<IndexOutOfBoundsException> { a.getAndAdd(4, 1) }
        }
        SharedArrays.create(F64.TYPE, 4L).use { a ->
            shouldThrow<DTypeMismatchException> { a.getAndAdd(0, 1) }.message shouldBe
                "getAndAdd needs an I64 or I32 array, this one holds F64"
        }
    }

    test("unlocked views (for workers on disjoint bands) do not wait for the lock; explicit locks still do") {
        SharedArrays.create(F64.TYPE, 1000L).use { a ->
            val holding = CountDownLatch(1)
            val release = CountDownLatch(1)
            val holder = Thread.ofPlatform().start { a.lockWrite().use { holding.countDown(); release.await() } }
            try {
                holding.await()
                val band = a.unlocked().slice(0, 0, 500, 1)
                band.isLocking() shouldBe false
                a.slice(0, 0, 500, 1).isLocking() shouldBe true
                band.fill(2.0)
                band.add(1.0)
                band.sum() shouldBe 1500.0
                a.unlocked().add(a.unlocked())
                a.unlocked().sum() shouldBe 3000.0
            } finally {
                release.countDown()
                holder.join()
            }
        }
    }

    test("a held lock closed on another thread is refused and stays held") {
        SharedArrays.create(F64.TYPE, 10L).use { a ->
            val read = a.lockRead()
            var error: Throwable? = null
            Thread.ofPlatform().start { error = runCatching { read.close() }.exceptionOrNull() }.join()
            error!!.message shouldBe "this thread does not hold the read lock; a lock is released by the thread that took it"
            a.lockStatus().readerPids() shouldBe listOf(ProcessHandle.current().pid())
            read.close()
            a.lockStatus().readerPids() shouldBe emptyList()
        }
    }

    test("a lock on a closed array is refused, not a crash") {
        val a = SharedArrays.create(F64.TYPE, 10L)
        a.close()
        shouldThrow<IllegalStateException> { a.lockWrite() }
        shouldThrow<IllegalStateException> { a.withReadLock { } }
        shouldThrow<IllegalStateException> { a.lockStatus() }
    }
})
