package dev.sharedarrays.testing

import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * A child JVM running [Child] with this JVM's classpath and native-access flag. Its stdout lines
 * are queued for [expectLine]; stderr is echoed with a prefix. [close] kills it (by its own pid)
 * if it still runs. It compiles with C1 only (it starts faster) unless [fullJit]; [jvmArgs] go
 * before the class name (`--add-modules jdk.incubator.vector`, `-Djava.io.tmpdir=...`). [shell],
 * if given, is sh code run before the JVM replaces the shell (e.g. `umask 000` or
 * `ulimit -n 4096`): the pid stays the JVM's.
 */
class ChildJvm(
    vararg args: String,
    env: Map<String, String> = emptyMap(),
    jvmArgs: List<String> = emptyList(),
    fullJit: Boolean = false,
    shell: String? = null,
) : AutoCloseable {
    val process: Process
    private val lines = LinkedBlockingQueue<String>()
    private val all = StringBuffer()

    init {
        val java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java")
        val jit = if (fullJit) emptyList() else listOf("-XX:TieredStopAtLevel=1")
        val cmd = listOf(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC") + jit + jvmArgs +
            listOf("-cp", System.getProperty("java.class.path"), Child::class.java.name) + args
        val pb = ProcessBuilder(if (shell == null) cmd else listOf("sh", "-c", "$shell; exec \"\$@\"", "sh") + cmd)
        pb.environment().remove("SHARED_ARRAYS_BACKEND")
        pb.environment().remove("SHARED_ARRAYS_DIR")
        pb.environment().putAll(env)
        process = pb.start()
        Thread.ofPlatform().daemon().start {
            // the stream is closed under us when the child is destroyed: that ends the output too
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
                    seq.forEach { all.append("[stderr] ").append(it).append('\n'); System.err.println("[child ${process.pid()}] $it") }
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
                ?: throw AssertionError("child $pid printed no '$prefix' line in ${timeoutSeconds}s; output so far:\n$all")
            if (line === EOF) throw AssertionError("child $pid ended (exit ${exitOrNull()}) before printing '$prefix'; output:\n$all")
            if (line.startsWith(prefix)) return line.removePrefix(prefix).trim()
        }
    }

    /** Sends one line to the child's stdin. */
    fun send(line: String) {
        process.outputStream.write((line + "\n").toByteArray())
        process.outputStream.flush()
    }

    fun waitForExit(timeoutSeconds: Long = 60): Int {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw AssertionError("child $pid still runs after ${timeoutSeconds}s; output:\n$all")
        }
        return process.exitValue()
    }

    fun output(): String = all.toString()

    private fun exitOrNull(): Int? = if (process.isAlive) null else process.exitValue()

    /** Kills the child with SIGKILL and reaps it. */
    fun kill() {
        ProcessBuilder("kill", "-KILL", pid.toString()).start().waitFor()
        process.waitFor(30, TimeUnit.SECONDS)
    }

    override fun close() {
        if (process.isAlive) {
            process.destroyForcibly()
            process.waitFor(30, TimeUnit.SECONDS)
        }
    }

    companion object {
        private val EOF = String(charArrayOf('\u0000'))
    }
}

private val scratchBase: File by lazy {
    val base = File(System.getProperty("java.io.tmpdir"), "sa-test-" + ProcessHandle.current().pid())
    Runtime.getRuntime().addShutdownHook(Thread { base.deleteRecursively() })
    base
}

/** A fresh directory under /tmp (short enough for Unix socket paths), removed when the test JVM exits. */
fun scratchDir(name: String): File {
    val dir = File(scratchBase, name + "-" + System.nanoTime())
    dir.mkdirs()
    return dir
}
