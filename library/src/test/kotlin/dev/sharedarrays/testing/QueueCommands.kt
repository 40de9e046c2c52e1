package dev.sharedarrays.testing

import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import java.io.DataOutputStream
import java.io.FileOutputStream
import java.time.Duration
import kotlin.random.Random

/**
 * Child commands for pool and queue tests:
 *  - `pool-hold <pool> <n>`: acquire n slots of an F64 pool, print `HOLDING`, sleep
 *  - `pool-drop-exit <pool> <n>`: acquire n slots of an F64 pool, keep only the slots (the pool object is
 *     left to the collector), print `HOLDING collected=<bool>` (whether the pool object went), wait for
 *     `exit` on stdin, then return from main without closing anything
 *  - `q-produce <queue> <pool> <producer> <count> <seed>`: send count messages: 9 in 10 a pool slot
 *     holding [producer, seq, seq * 3 ...], the rest a random view of a block of an F64 array of this
 *     process's (see [QueueMessages]); print `DONE`
 *  - `q-consume <queue> <file>`: receive until the queue ends, check each message's contents, write
 *     each message's code (producer * 2^32 + seq) to file as a long, close it; print `COUNT <n>`
 *  - `q-hold <queue>`: receive one message, print `HOLDING`, sleep
 *  - `q-send-hold <queue>`: send a view of an array of this process, print `SENT`, sleep
 *  - `q-spam <queue> <pool>`: print `SPAMMING`, then send pool slots holding [pid, seq] forever
 *  - `change-wait <array> <n>`: n times: awaitChange from the last count seen, print the time of the wake-up
 *     (System.nanoTime) as `WOKE <count> <nanos>`
 */
object QueueCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "pool-hold" -> {
                val pool = ArrayPool.attach(dev.sharedarrays.ArrayHandle.parse(args[1]), F64.TYPE)
                repeat(args[2].toInt()) { pool.acquire(Duration.ofSeconds(10)) }
                println("HOLDING")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "pool-drop-exit" -> {
                val (slots, pool) = holdThroughDroppedPool(args[1], args[2].toInt())
                repeat(20) {
                    if (pool.get() != null) {
                        System.gc()
                        Thread.sleep(10)
                    }
                }
                println("HOLDING collected=${pool.get() == null}")
                System.out.flush()
                check(readlnOrNull() == "exit") { "expected exit" }
                java.lang.ref.Reference.reachabilityFence(slots)
            }
            "q-produce" -> produce(args[1], args[2], args[3].toInt(), args[4].toInt(), args[5].toLong())
            "q-consume" -> consume(args[1], args[2])
            "q-hold" -> {
                val q = ArrayQueue.attach(args[1])
                q.receive(Duration.ofSeconds(30))
                println("HOLDING")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "q-send-hold" -> {
                val q = ArrayQueue.attach(args[1])
                val a = SharedArrays.create(F64.TYPE, 4L)
                q.send(a, Duration.ofSeconds(10))
                println("SENT")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "q-spam" -> {
                val q = ArrayQueue.attach(args[1])
                val pool = ArrayPool.attach(dev.sharedarrays.ArrayHandle.parse(args[2]), F64.TYPE)
                println("SPAMMING")
                System.out.flush()
                var seq = 0L
                while (true) {
                    val s = pool.acquire(Duration.ofSeconds(30))
                    s.setDouble(0, ProcessHandle.current().pid().toDouble())
                    s.setDouble(1, (seq++).toDouble())
                    q.send(s, Duration.ofSeconds(30))
                }
            }
            "change-wait" -> SharedArrays.attach(args[1]).use { a ->
                var seen = a.changeCount()
                println("WAITING $seen")
                System.out.flush()
                repeat(args[2].toInt()) {
                    seen = a.awaitChange(seen, Duration.ofSeconds(30))
                    val t = System.nanoTime()
                    println("WOKE $seen $t")
                }
                System.out.flush()
            }
            else -> return false
        }
        return true
    }

    /** pool-drop-exit's slots, and a weak reference to the pool object they came from. */
    private fun holdThroughDroppedPool(pool: String, n: Int): Pair<List<SharedNDArray<F64>>, java.lang.ref.WeakReference<ArrayPool<F64>>> {
        val p = ArrayPool.attach(dev.sharedarrays.ArrayHandle.parse(pool), F64.TYPE)
        return List(n) { p.acquire(Duration.ofSeconds(10)) } to java.lang.ref.WeakReference(p)
    }

    private fun produce(queue: String, pool: String, producer: Int, count: Int, seed: Long) {
        val q = ArrayQueue.attach(queue)
        val p = ArrayPool.attach(dev.sharedarrays.ArrayHandle.parse(pool), F64.TYPE)
        val blocks = SharedArrays.create(F64.TYPE, count / 10L + 1, 8L, 8L)
        val rng = Random(seed * 7919 + producer)
        var views = 0L
        for (seq in 0 until count) {
            if (rng.nextInt(10) != 0) {
                val s = p.acquire(Duration.ofSeconds(60))
                QueueMessages.writeSlot(s, producer, seq)
                q.send(s, Duration.ofSeconds(60))
            } else {
                val b = views++
                QueueMessages.writeBlock(blocks.select(0, b), producer, seq)
                q.send(QueueMessages.randomView(blocks.select(0, b), Random(QueueMessages.viewSeed(producer, seq))),
                    Duration.ofSeconds(60))
            }
        }
        println("DONE")
        System.out.flush()
        // the blocks must stay while consumers attach them: wait for the parent's word
        readlnOrNull()
        q.close()
        p.close()
        blocks.close()
    }

    private fun consume(queue: String, file: String) {
        val q = ArrayQueue.attach(queue)
        var n = 0
        DataOutputStream(FileOutputStream(file).buffered()).use { out ->
            while (true) {
                val a = q.receive(F64.TYPE, Duration.ofSeconds(120)) ?: break
                out.writeLong(QueueMessages.check(a))
                a.close()
                n++
            }
        }
        println("COUNT $n")
        System.out.flush()
        q.close()
    }
}

/** What the queue tests' producers put in their messages, and how consumers check it. */
object QueueMessages {
    private fun code(producer: Int, seq: Int) = producer.toLong() shl 32 or seq.toLong()

    fun viewSeed(producer: Int, seq: Int) = code(producer, seq) * 31 + 7

    fun writeSlot(s: SharedNDArray<F64>, producer: Int, seq: Int) {
        s.setDouble(0, producer.toDouble())
        s.setDouble(1, seq.toDouble())
        for (i in 2 until s.size()) s.setDouble(i, seq * 3.0 + i)
    }

    /** Element (r, c) of a block: (code * 64 + r * 8 + c), exact in a double. */
    fun writeBlock(block: SharedNDArray<F64>, producer: Int, seq: Int) {
        for (r in 0L until 8) for (c in 0L until 8) block.setDouble(longArrayOf(r, c), (code(producer, seq) * 64 + r * 8 + c).toDouble())
    }

    /** A random strided, possibly transposed view of an 8x8 block, the same for the same rng seed. */
    fun randomView(block: SharedNDArray<F64>, rng: Random): SharedNDArray<F64> {
        val r0 = rng.nextLong(0, 8)
        val c0 = rng.nextLong(0, 8)
        val v = block.slice(0, r0, rng.nextLong(r0 + 1, 9), rng.nextLong(1, 3))
            .slice(1, c0, rng.nextLong(c0 + 1, 9), rng.nextLong(1, 3))
        return if (rng.nextBoolean()) v.transpose() else v
    }

    /** Checks a received message's contents and returns its code; throws if they are wrong. */
    fun check(a: SharedNDArray<F64>): Long {
        if (a.ndim() == 1) {
            val producer = a.getDouble(0).toInt()
            val seq = a.getDouble(1).toInt()
            for (i in 2 until a.size()) check(a.getDouble(i) == seq * 3.0 + i) { "slot $producer/$seq element $i is ${a.getDouble(i)}" }
            return code(producer, seq)
        }
        val first = a.getDouble(0).toLong() / 64
        val producer = (first shr 32).toInt()
        val seq = first.toInt()
        // the view the sender made, applied to a heap model of the block
        val block = HeapBlock.of(code(producer, seq))
        val expected = randomView(block, Random(viewSeed(producer, seq)))
        check(a.shape().contentEquals(expected.shape())) { "view $producer/$seq has shape ${a.shape().toList()}, expected ${expected.shape().toList()}" }
        for (i in 0 until a.size()) check(a.getDouble(i) == expected.getDouble(i)) { "view $producer/$seq element $i is ${a.getDouble(i)}" }
        block.close()
        return code(producer, seq)
    }

    /** A block filled as the producer fills it, in anonymous memory of this process. */
    private object HeapBlock {
        fun of(code: Long): SharedNDArray<F64> {
            val a = SharedArrays.create(F64.TYPE, longArrayOf(8, 8), dev.sharedarrays.CreateOptions.defaults()
                .backend(dev.sharedarrays.Backend.ANONYMOUS))
            for (r in 0L until 8) for (c in 0L until 8) a.setDouble(longArrayOf(r, c), (code * 64 + r * 8 + c).toDouble())
            return a
        }
    }
}
