package dev.sharedarrays.testing

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import java.lang.ref.Reference
import java.lang.ref.WeakReference
import java.time.Duration

/**
 * Child commands for the tests of dead queues and of producers that exit without close
 * ([dev.sharedarrays.QueueRecoveryTest]). Slot k sent by a child holds [pid, k].
 *  - `slot-fill <queue|new> <pool> <n>`: attach the queue (`new`: create an OWNER shm queue of 16
 *     and print `QUEUE <handle>`), send n slots of the F64 pool, print `SENT`, sleep
 *  - `slot-exit <queue|new> <pool> <n> [drop]`: the same queue (`new`: print `QUEUE <handle>`, then
 *     wait for `go` on stdin), send n slots, print `SENT`, wait for `exit` on stdin, then return from
 *     main without closing the queue or the pool. With `drop` the queue and pool objects are left
 *     unreachable and collected before `SENT`, which then says whether the queue was: `SENT collected=<bool>`
 */
object SlotCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "slot-fill" -> {
                val q = queue(args[1])
                send(q, args[2], args[3].toInt())
                println("SENT")
                System.out.flush()
                Thread.sleep(Long.MAX_VALUE)
            }
            "slot-exit" -> {
                val drop = args.size > 4 && args[4] == "drop"
                val (kept, q) = sendAndKeep(args[1], args[2], args[3].toInt(), keep = !drop)
                if (drop) {
                    repeat(20) {
                        if (q.get() != null) {
                            System.gc()
                            Thread.sleep(10)
                        }
                    }
                    println("SENT collected=${q.get() == null}")
                } else {
                    println("SENT")
                }
                System.out.flush()
                check(readlnOrNull() == "exit") { "expected exit" }
                // no close: the shutdown hook must close the queue (and the pool) so that this process left, not died
                Reference.reachabilityFence(kept)
            }
            else -> return false
        }
        return true
    }

    /** slot-exit's queue and sends: the queue if [keep] (else null), and a weak reference to it. */
    private fun sendAndKeep(which: String, pool: String, n: Int, keep: Boolean): Pair<ArrayQueue?, WeakReference<ArrayQueue>> {
        val q = queue(which)
        if (which == "new") {
            check(readlnOrNull() == "go") { "expected go" }
        }
        send(q, pool, n)
        return Pair(if (keep) q else null, WeakReference(q))
    }

    private fun queue(which: String): ArrayQueue {
        if (which != "new") {
            return ArrayQueue.attach(which)
        }
        val q = ArrayQueue.create(16, CreateOptions.defaults().backend(Backend.SHM))
        println("QUEUE ${q.handle()}")
        System.out.flush()
        return q
    }

    /** Sends n slots of the pool, slot k holding [pid, k]. */
    private fun send(q: ArrayQueue, pool: String, n: Int) {
        val p = ArrayPool.attach(ArrayHandle.parse(pool), F64.TYPE)
        val pid = ProcessHandle.current().pid().toDouble()
        for (k in 0 until n) {
            val s = p.acquire(Duration.ofSeconds(10))
            s.setDouble(0, pid)
            s.setDouble(1, k.toDouble())
            q.send(s, Duration.ofSeconds(10))
        }
    }
}
