package dev.sharedarrays.testing

import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * The repository's Python peer environment: `<repo>/target/pyenv`, a virtual environment with
 * `./python` and pytest installed, made or refreshed by `python/ensure-env` (which reinstalls when
 * the package's sources are newer than its stamp; the first install takes some seconds).
 */
object PythonEnv {
    /** The repository root: the nearest directory above the working directory with python/pyproject.toml. */
    val root: File by lazy {
        generateSequence(File(System.getProperty("user.dir")).absoluteFile) { it.parentFile }
            .firstOrNull { File(it, "python/pyproject.toml").isFile }
            ?: error("no python/pyproject.toml above ${System.getProperty("user.dir")}")
    }

    /** The environment's python, installed and up to date. */
    val python: String by lazy {
        val p = ProcessBuilder(File(root, "python/ensure-env").path)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
        val out = p.inputStream.bufferedReader().readText()
        check(p.waitFor(600, TimeUnit.SECONDS) && p.exitValue() == 0) { "python/ensure-env failed (exit ${p.exitValue()}): $out" }
        out.trim().lines().last()
    }

    val peerScript: File get() = File(root, "python/tests/peers/peer.py")
}

/**
 * A Python peer process running `python/tests/peers/peer.py` (see its docstring for the commands)
 * in [PythonEnv]. Its stdout lines are queued for [expectLine]; stderr is echoed with a prefix.
 * [close] kills it (by its own pid) if it still runs. Like [ChildJvm], it starts without
 * SHARED_ARRAYS_BACKEND and SHARED_ARRAYS_DIR unless [env] sets them.
 */
class PythonPeer(vararg args: String, env: Map<String, String> = emptyMap()) : AutoCloseable {
    val process: Process
    private val lines = LinkedBlockingQueue<String>()
    private val all = StringBuffer()

    init {
        val pb = ProcessBuilder(listOf(PythonEnv.python, PythonEnv.peerScript.path) + args)
        pb.environment().remove("SHARED_ARRAYS_BACKEND")
        pb.environment().remove("SHARED_ARRAYS_DIR")
        pb.environment()["PYTHONUNBUFFERED"] = "1"
        pb.environment().putAll(env)
        process = pb.start()
        Thread.ofPlatform().daemon().start {
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
                    seq.forEach { all.append("[stderr] ").append(it).append('\n'); System.err.println("[python ${process.pid()}] $it") }
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
                ?: throw AssertionError("python peer $pid printed no '$prefix' line in ${timeoutSeconds}s; output so far:\n$all")
            if (line === EOF) {
                val exit = if (process.isAlive) null else process.exitValue()
                throw AssertionError("python peer $pid ended (exit $exit) before printing '$prefix'; output:\n$all")
            }
            if (line.startsWith(prefix)) return line.removePrefix(prefix).trim()
        }
    }

    /** Sends one line to the peer's stdin. */
    fun send(line: String) {
        process.outputStream.write((line + "\n").toByteArray())
        process.outputStream.flush()
    }

    fun waitForExit(timeoutSeconds: Long = 60): Int {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw AssertionError("python peer $pid still runs after ${timeoutSeconds}s; output:\n$all")
        }
        return process.exitValue()
    }

    fun output(): String = all.toString()

    /** Kills the peer with SIGKILL and reaps it. */
    fun kill() {
        process.destroyForcibly() // SIGKILL to this process's own pid
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
