package dev.sharedarrays.testing

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.I64
import dev.sharedarrays.SegmentTruncatedException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import java.time.Duration
import java.util.TreeMap
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

/**
 * Child commands for queues and pools whose files are truncated under them:
 *  - `qp-loop <queue> <pool> <warmup>`: attach the queue and the I64 pool, run [QueuePoolLoop] warmup
 *     rounds (C2 compiles them), print `WARM`; on the next stdin line loop until the line after, then print
 *     `OUTCOMES <op>=<outcome>:<count> ...` and `RATE <rounds per second>`; on the next line close the
 *     queue and the pool and print `CLOSED`, or `CLOSE <class> <message>` if a close threw
 *  - `simd-loop <handle> <warmup>`: attach the I64 array, run sum and `+= 1` warmup times, print `READY`, then run
 *     them until stdin says `exit`; at the first SegmentTruncatedException after a success print
 *     `TRUNC fault` (a fault in the kernel) or `TRUNC check` (the size check before it), at the first success
 *     after that `BACK`; any other throwable ends the loop with `UNEXPECTED <class> <message>`
 *  - `held-atomics <handle>`: attach the I64 array, take its write lock, print `HELD`; on the next stdin line
 *     (the file is truncated by then) release it and run each atomic once, then print
 *     `ATOMICS <op>=<outcome> ...` (outcome: OK or the exception's simple name)
 */
object TruncationQueueCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "qp-loop" -> qpLoop(ArrayQueue.attach(args[1]), ArrayPool.attach(ArrayHandle.parse(args[2]), I64.TYPE), args[3].toInt())
            "held-atomics" -> heldAtomics(SharedArrays.attach(ArrayHandle.parse(args[1]), I64.TYPE))
            "simd-loop" -> simdLoop(SharedArrays.attach(ArrayHandle.parse(args[1]), I64.TYPE), args[2].toInt())
            else -> return false
        }
        System.out.flush()
        return true
    }

    private fun heldAtomics(a: SharedNDArray<I64>) {
        val held = a.lockWrite()
        println("HELD")
        System.out.flush()
        readlnOrNull()
        val ops = linkedMapOf<String, () -> Unit>(
            "unlock" to { held.close() },
            "compareAndSet" to { a.compareAndSet(0, 0, 1) },
            "getAndAdd" to { a.getAndAdd(1, 1) },
            "getAndSet" to { a.getAndSet(2, 1) },
            "signalChange" to { a.signalChange() },
            "lockRead" to { a.lockRead().close() },
        )
        val outcomes = ops.map { (op, run) ->
            op + "=" + try {
                run(); "OK"
            } catch (e: RuntimeException) {
                e.javaClass.simpleName
            } catch (e: Error) {
                e.javaClass.simpleName
            }
        }
        println("ATOMICS " + outcomes.joinToString(" "))
        System.out.flush()
        a.close()
    }

    private fun simdLoop(a: SharedNDArray<I64>, warmup: Int) {
        repeat(warmup) { a.sum(); a.add(1L) } // C2 compiles the SIMD loops
        println("READY")
        System.out.flush()
        val stop = AtomicBoolean()
        Thread.ofPlatform().daemon().start { while (readlnOrNull().let { it != null && it != "exit" }) Unit; stop.set(true) }
        var truncated = false
        try {
            while (!stop.get()) {
                try {
                    a.sum()
                    a.add(1L)
                    if (truncated) println("BACK")
                    truncated = false
                } catch (e: SegmentTruncatedException) {
                    if (!truncated) println("TRUNC " + if (e.cause is InternalError) "fault" else "check")
                    truncated = true
                }
                System.out.flush()
            }
        } catch (t: Throwable) {
            println("UNEXPECTED ${t.javaClass.name} ${t.message}")
        }
        a.close()
    }

    private fun qpLoop(queue: ArrayQueue, pool: ArrayPool<I64>, warmup: Int) {
        val uncaught = QueuePoolLoop.countUncaught()
        val loop = QueuePoolLoop(queue, pool)
        repeat(warmup) { loop.round() }
        loop.outcomes.clear()
        println("WARM")
        System.out.flush()
        val stdin = System.`in`.bufferedReader()
        stdin.readLine()
        val stop = AtomicBoolean()
        Thread.ofPlatform().daemon().start { stdin.readLine(); stop.set(true) }
        val start = System.nanoTime()
        var rounds = 0L
        while (!stop.get()) {
            loop.round()
            rounds++
        }
        val seconds = (System.nanoTime() - start) / 1e9
        uncaught.forEach { (k, v) -> loop.outcomes.merge("uncaught=$k", v.get(), Long::plus) }
        println("OUTCOMES " + loop.outcomes.entries.joinToString(" ") { "${it.key}:${it.value}" })
        println("RATE ${(rounds / seconds).toLong()}")
        System.out.flush()
        stdin.readLine()
        val failed = listOf(queue::close, pool::close).mapNotNull { close -> runCatching { close() }.exceptionOrNull() }
        println(if (failed.isEmpty()) "CLOSED" else "CLOSE ${failed[0].javaClass.name} ${failed[0].message}")
    }
}

/**
 * One process's use of a queue and an I64 pool, every public method that touches their shared
 * words, counting each call's outcome as `<op>=OK` or `<op>=<exception class>` (the cause of an
 * async form's ExecutionException); never stops at an exception. Not thread-safe.
 */
class QueuePoolLoop(private val queue: ArrayQueue, private val pool: ArrayPool<I64>) {
    val outcomes = TreeMap<String, Long>()
    private var n = 0L

    private fun record(op: String, outcome: String) {
        outcomes.merge("$op=$outcome", 1L, Long::plus)
    }

    private inline fun <R> op(name: String, body: () -> R): R? = try {
        body().also { record(name, "OK") }
    } catch (e: Throwable) {
        val cause = if (e is ExecutionException && e.cause != null) e.cause!! else e
        record(name, cause.javaClass.simpleName)
        if (cause is Error && cause !is InternalError) throw cause
        null
    }

    private fun closeQuietly(name: String, a: SharedNDArray<*>?) {
        if (a != null) op(name) { a.close() }
    }

    /** One round: acquire, fill and send a slot, receive and close a message, and look at both. */
    fun round() {
        n++
        try {
            val slot = op("tryAcquire") { pool.tryAcquire() }
            try {
                if (slot != null) {
                    op("setLong") { slot.setLong(0, n) }
                    if (op("trySend") { queue.trySend(slot) } == true) {
                        // sent: the slot array is closed
                    }
                }
            } finally {
                closeQuietly("slotClose", slot)
            }
            closeQuietly("receivedClose", op("receive") { queue.receive(Duration.ofNanos(200_000)) })
            closeQuietly("acquiredClose", op("acquire") { pool.acquire(Duration.ofNanos(200_000)) })
            op("size") { queue.size() }
            op("isEnded") { queue.isEnded() }
            op("dropped") { queue.dropped() }
            op("free") { pool.free() }
            if (n % 64 == 0L) {
                op("queueToString") { queue.toString() }
                op("poolToString") { pool.toString() }
                val s = op("acquireAsync") { pool.acquireAsync(Duration.ofMillis(1)).get(10, TimeUnit.SECONDS) }
                try {
                    if (s != null) op("sendAsync") { queue.sendAsync(s, Duration.ofMillis(1)).get(10, TimeUnit.SECONDS) }
                } finally {
                    closeQuietly("slotClose", s)
                }
                closeQuietly("receivedClose", op("receiveAsync") { queue.receiveAsync(Duration.ofMillis(1)).get(10, TimeUnit.SECONDS) })
            }
        } catch (e: InternalError) {
            record("between", e.javaClass.simpleName) // delivered outside every op: at an unrelated frame
        }
    }

    companion object {
        /** Counts the throwables that end threads of this process (the library's wait threads), by class. */
        fun countUncaught(): Map<String, java.util.concurrent.atomic.AtomicLong> {
            val counts = java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong>()
            Thread.setDefaultUncaughtExceptionHandler { _, e ->
                counts.computeIfAbsent(e.javaClass.simpleName) { java.util.concurrent.atomic.AtomicLong() }.incrementAndGet()
            }
            return counts
        }
    }
}
