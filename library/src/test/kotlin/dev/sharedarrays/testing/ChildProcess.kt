package dev.sharedarrays.testing

import java.io.BufferedReader
import java.io.InputStreamReader
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * A process a test started ([ChildJvm], [PythonPeer]): its stdout lines are queued for
 * [expectLine]; stderr is echoed with a prefix naming [what] and the pid. [close] kills it (by its
 * own pid) if it still runs.
 */
open class ChildProcess(val process: Process, private val what: String) : AutoCloseable {
    private val lines = LinkedBlockingQueue<String>()
    private val all = StringBuffer()

    init {
        Thread.ofPlatform().daemon().start {
            // the stream is closed under us when the process is destroyed: that ends the output too
            runCatching {
                BufferedReader(InputStreamReader(process.inputStream)).useLines { seq ->
                    seq.forEach { all.append(it).append('\n'); lines.put(it) }
                }
            }
            lines.put(EOF)
        }
        Thread.ofPlatform().daemon().start {
            runCatching {
                BufferedReader(InputStreamReader(process.errorStream)).useLines { seq ->
                    seq.forEach { all.append("[stderr] ").append(it).append('\n'); System.err.println("[$what ${process.pid()}] $it") }
                }
            }
        }
    }

    val pid: Long get() = process.pid()

    /** The next stdout line that starts with [prefix], with the prefix removed. */
    fun expectLine(prefix: String, timeoutSeconds: Long = 60): String {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
        while (true) {
            val left = deadline - System.nanoTime()
            val line = lines.poll(maxOf(left, 0), TimeUnit.NANOSECONDS)
                ?: throw AssertionError("$what $pid printed no '$prefix' line in ${timeoutSeconds}s; output so far:\n$all")
            if (line === EOF) throw AssertionError("$what $pid ended (exit ${exitOrNull()}) before printing '$prefix'; output:\n$all")
            if (line.startsWith(prefix)) return line.removePrefix(prefix).trim()
        }
    }

    /** Sends one line to the process's stdin. */
    fun send(line: String) {
        process.outputStream.write((line + "\n").toByteArray())
        process.outputStream.flush()
    }

    fun waitForExit(timeoutSeconds: Long = 60): Int {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw AssertionError("$what $pid still runs after ${timeoutSeconds}s; output:\n$all")
        }
        return process.exitValue()
    }

    fun output(): String = all.toString()

    private fun exitOrNull(): Int? = if (process.isAlive) null else process.exitValue()

    /** Kills the process with SIGKILL (to its own pid) and reaps it. */
    fun kill() {
        process.destroyForcibly()
        process.waitFor(30, TimeUnit.SECONDS)
    }

    override fun close() {
        if (process.isAlive) {
            process.destroyForcibly()
            process.waitFor(30, TimeUnit.SECONDS)
        }
    }

    private companion object {
        val EOF = String(charArrayOf('\u0000'))
    }
}
