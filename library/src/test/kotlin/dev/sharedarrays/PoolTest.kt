package dev.sharedarrays

import dev.sharedarrays.internal.sync.PoolProtocol
import dev.sharedarrays.testing.ChildJvm
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.time.Duration

/** ArrayPool: slots handed out once, returned on close, reclaimed from dead owners, mapped by numpy. */
class PoolTest : FunSpec({

    test("acquire hands out each slot once; close returns it; a full pool times out with a clear message") {
        ArrayPool.create(F64.TYPE, 3, 4L, 2L).use { pool ->
            pool.slots() shouldBe 3
            pool.slotShape().toList() shouldBe listOf(4L, 2L)
            val held = List(3) { pool.acquire(Duration.ofSeconds(1)) }
            held.map { it.shape().toList() }.toSet() shouldBe setOf(listOf(4L, 2L))
            held.map { it.isLocking() }.toSet() shouldBe setOf(false) // one owner: no lock shared by all slots
            pool.free() shouldBe 0
            val e = shouldThrow<WaitTimeoutException> { pool.acquire(Duration.ofMillis(30)) }
            e.message shouldContain "no slot of pool ${pool.handle()} came free within PT0.03S"
            pool.tryAcquire() shouldBe null
            held[1].setDouble(longArrayOf(3, 1), 7.5)
            held[1].close()
            held[1].close() // idempotent: frees once
            pool.free() shouldBe 1
            val again = pool.acquire(Duration.ofSeconds(1))
            again.getDouble(longArrayOf(3, 1)) shouldBe 7.5 // the same slot, contents as left
            shouldThrow<IllegalStateException> { held[1].getDouble(0) }
            again.close()
            held[0].close()
            held[2].close()
            pool.free() shouldBe 3
        }
    }

    test("bad arguments are clear errors") {
        shouldThrow<IllegalArgumentException> { ArrayPool.create(F64.TYPE, 0, 4L) }.message shouldBe
            "a pool has 1 to 256 slots, but slots was 0"
        shouldThrow<IllegalArgumentException> { ArrayPool.create(F64.TYPE, 257, 4L) }
        shouldThrow<IllegalArgumentException> { ArrayPool.create(F64.TYPE, 2) }.message shouldBe
            "a slot has 1 to 7 dimensions, but slotShape was []"
        SharedArrays.create(F64.TYPE, 4L, 2L).use { a ->
            shouldThrow<InvalidSegmentException> { ArrayPool.attach(a.handle(), F64.TYPE) }.message shouldContain "is not an array pool"
        }
        ArrayPool.create(I32.TYPE, 2, 3L).use { p ->
            shouldThrow<DTypeMismatchException> { ArrayPool.attach(p.handle(), F64.TYPE) }
            shouldThrow<IllegalArgumentException> { p.acquire(Duration.ofSeconds(-1)) }
        }
    }

    test("closing the pool returns the slots this instance holds; another process's slots are its own") {
        ArrayPool.create(I64.TYPE, 2, 8L).use { pool ->
            val other = ArrayPool.attach(pool.handle(), I64.TYPE)
            other.acquire(Duration.ofSeconds(1))
            other.acquire(Duration.ofSeconds(1))
            pool.free() shouldBe 0
            other.close()
            pool.free() shouldBe 2
        }
    }

    test("slots held through a pool object nothing keeps are freed by their process's exit, not left to reclaim") {
        ArrayPool.create(F64.TYPE, 3, 16L).use { pool ->
            ChildJvm("pool-drop-exit", pool.handle().toString(), "2").use { child ->
                // the slots keep their pool object: its close at exit frees them
                child.expectLine("HOLDING collected=") shouldBe "false"
                val owners = { (0 until 3).map { PoolProtocol.owner(pool.control(), it) } }
                owners().count { it != 0L } shouldBe 2
                child.send("exit")
                child.waitForExit() shouldBe 0
                // the owner words themselves: free() would also reclaim a dead holder's slots, hiding a missed close
                owners() shouldBe listOf(0L, 0L, 0L)
            }
        }
    }

    test("a slot held by a SIGKILLed process is free again within 1 s, for free() and for acquire") {
        ArrayPool.create(F64.TYPE, 2, 16L).use { pool ->
            ChildJvm("pool-hold", pool.handle().toString(), "2").use { child ->
                child.expectLine("HOLDING")
                pool.free() shouldBe 0
                child.kill()
                val t0 = System.nanoTime()
                val slot = pool.acquire(Duration.ofSeconds(5))
                val ms = (System.nanoTime() - t0) / 1_000_000
                println("slot of a killed owner reclaimed by acquire after $ms ms")
                ms shouldBeLessThan 1000L
                pool.free() shouldBe 1
                slot.close()
            }
        }
    }

    test("numpy maps the pool at its path and sees every slot's data") {
        ArrayPool.create(F64.TYPE, 4, 3L, 5L).use { pool ->
            val slots = List(4) { pool.acquire(Duration.ofSeconds(1)) }
            val path = pool.path().orElseThrow()
            for ((k, s) in slots.withIndex()) {
                for (i in 0 until 15) s.setDouble(i.toLong(), 1000.0 * (k + 1) + i)
            }
            val script = """
                import numpy as np, sys
                a = np.load(sys.argv[1], mmap_mode='r')
                print(a.shape, a.dtype)
                for k in range(a.shape[0]):
                    print(' '.join(repr(float(x)) for x in a[k].ravel()))
            """.trimIndent()
            val p = ProcessBuilder("python3", "-c", script, path.toString()).redirectErrorStream(true).start()
            val out = p.inputStream.bufferedReader().readLines()
            p.waitFor() shouldBe 0
            out[0] shouldBe "(4, 3, 5) float64"
            // each acquired slot appears as one row of the pool, with exactly the values written through it
            val rows = out.drop(1).map { line -> line.split(" ").map { it.toDouble() } }
            val written = slots.indices.map { k -> (0 until 15).map { 1000.0 * (k + 1) + it } }
            rows.toSet() shouldBe written.toSet()
            slots.forEach { it.close() }
        }
    }
})
