package dev.sharedarrays.testing

import dev.sharedarrays.I64
import dev.sharedarrays.SharedNDArray
import java.io.File

/**
 * Stopping (SIGSTOP) and signalling test processes by their own pid, and catching a churning one
 * (`stop-churn`, [StopCommands]) while it holds a queue's mutex.
 */
object Stopping {
    /** The queue's mutex holder word: element 2 of its I64 array (byte 16, see QueueDescriptor). */
    const val MUTEX_WORD = 2L
    /** The pid bits of a process ident (see Proc.ident). */
    const val PID_MASK = (1L shl 24) - 1

    fun signal(name: String, pid: Long) {
        ProcessBuilder("kill", "-$name", pid.toString()).start().waitFor()
    }

    /** The state letter of /proc/<pid>/stat ('T' once stopped), or '?' if the process is gone. */
    fun state(pid: Long): Char = runCatching {
        val stat = File("/proc/$pid/stat").readText()
        stat[stat.lastIndexOf(')') + 2]
    }.getOrDefault('?')

    /** SIGSTOPs pid and returns once the kernel says it is stopped. */
    fun stop(pid: Long) {
        signal("STOP", pid)
        val deadline = System.nanoTime() + 5_000_000_000L
        while (state(pid) != 'T') {
            check(System.nanoTime() < deadline) { "pid $pid did not stop within 5 s (state ${state(pid)})" }
            Thread.sleep(1)
        }
    }

    /**
     * SIGSTOPs the churning process until it is caught holding the queue's mutex ([words]: the queue's
     * array as I64; the holder word names it after it stopped), SIGCONTing it between tries; the try that
     * caught it, or 0 if none of [maxTries] did.
     */
    fun stopHoldingMutex(pid: Long, words: SharedNDArray<I64>, maxTries: Int = 300): Int {
        for (i in 1..maxTries) {
            stop(pid)
            Thread.sleep(5) // every thread is stopped by now: the word no longer moves
            if ((words.getVolatile(MUTEX_WORD) and PID_MASK) == pid) {
                return i
            }
            signal("CONT", pid)
            Thread.sleep(2)
        }
        return 0
    }
}
