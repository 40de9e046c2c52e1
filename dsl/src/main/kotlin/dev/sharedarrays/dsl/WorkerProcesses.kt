package dev.sharedarrays.dsl

import java.io.BufferedReader
import java.io.InputStreamReader
import java.io.OutputStream
import java.lang.management.ManagementFactory
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.time.Duration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout

/**
 * Worker JVMs running a main class with this JVM's `java`, classpath and flags (and
 * `--enable-native-access=ALL-UNNAMED` if this JVM did not say). Hand them arrays by putting
 * handles in their arguments or environment. Their stdout and stderr lines go to an output
 * function, `[worker 2] ...` by default.
 *
 * [join] waits for all of them and fails fast: the first worker to exit with a non-zero status
 * gets the others killed and a [WorkerFailedException] thrown. [close] (and a [SharedArraysScope]
 * that registered them, see [SharedArraysScope.launchWorkers]) kills those still running.
 * Only the processes started here are ever signalled, by their own pid.
 */
public class WorkerProcesses private constructor(private val workers: List<Worker>) : AutoCloseable {
    private class Worker(val index: Int, val process: Process) {
        val tail = ArrayDeque<String>()
        lateinit var pump: Thread
    }

    /** How many workers were started. */
    public val size: Int get() = workers.size

    /** The workers' pids, in worker order. */
    public val pids: List<Long> get() = workers.map { it.process.pid() }

    /** Worker [worker]'s standard input (for example to send it handles or data later). */
    public fun stdin(worker: Int): OutputStream = workers[worker].process.outputStream

    /** True while worker [worker] runs. */
    public fun isAlive(worker: Int): Boolean = workers[worker].process.isAlive

    /**
     * Suspends until every worker has exited with status 0 and its output has been passed on;
     * returns the statuses. Waiting does not block a thread.
     *
     * @throws WorkerFailedException if a worker exits with another status, or [timeout] passes
     *         (the others are killed first)
     */
    public suspend fun join(timeout: Duration = Duration.INFINITE): List<Int> {
        val failed: Worker? = try {
            withTimeout(timeout) {
                val pending = workers.toMutableList()
                var failed: Worker? = null
                while (pending.isNotEmpty() && failed == null) {
                    CompletableFuture.anyOf(*pending.map { it.process.onExit() }.toTypedArray()).await()
                    val done = pending.filter { !it.process.isAlive }
                    pending -= done.toSet()
                    failed = done.firstOrNull { it.process.exitValue() != 0 }
                }
                failed
            }
        } catch (e: TimeoutCancellationException) {
            val running = workers.firstOrNull { it.process.isAlive } ?: workers.first()
            kill()
            drain()
            throw failure(running, "was still running after $timeout", -1)
        } catch (e: CancellationException) {
            kill()
            throw e
        }
        if (failed != null) {
            kill()
            drain()
            throw failure(failed, "exited with status ${failed.process.exitValue()}", failed.process.exitValue())
        }
        drain()
        return workers.map { it.process.exitValue() }
    }

    private suspend fun drain() = withContext(Dispatchers.IO) {
        workers.forEach { it.pump.join(5000) }
    }

    private fun failure(w: Worker, what: String, status: Int): WorkerFailedException {
        val tail = synchronized(w.tail) { w.tail.toList() }
        val others = workers.filter { it !== w }.map { it.process.pid() }
        return WorkerFailedException(
            "worker ${w.index} (pid ${w.process.pid()}) $what; killed the other workers (pids $others)" +
                (if (tail.isEmpty()) "; it printed nothing" else "; its last output:\n" + tail.joinToString("\n")),
            w.index, w.process.pid(), status,
        )
    }

    /** Kills (SIGKILL) the workers still running and reaps them. */
    public fun kill() {
        workers.forEach { if (it.process.isAlive) it.process.destroyForcibly() }
        workers.forEach { it.process.waitFor(30, TimeUnit.SECONDS) }
    }

    /** Kills the workers still running; see [kill]. */
    override fun close() {
        kill()
    }

    public companion object {
        private const val TAIL_LINES = 20

        // start's defaults, which SharedArraysScope.launchWorkers passes on
        internal val NO_ARGS: (worker: Int) -> List<String> = { emptyList() }
        internal val NO_ENVIRONMENT: (worker: Int) -> Map<String, String> = { emptyMap() }
        internal val PRINT_LINES: (worker: Int, line: String) -> Unit = { w, line -> println("[worker $w] $line") }

        /**
         * Starts [count] worker JVMs running [mainClass] (a class with a `main`, such as
         * `"com.example.WorkerKt"` for a Kotlin file's top-level `main`).
         *
         * @param args the program arguments of worker `i`
         * @param environment variables added to worker `i`'s environment
         * @param javaOptions JVM options after the inherited ones (a later `-Xmx` wins)
         * @param output receives each line the worker prints, stdout and stderr merged
         */
        public fun start(
            count: Int,
            mainClass: String,
            args: (worker: Int) -> List<String> = NO_ARGS,
            environment: (worker: Int) -> Map<String, String> = NO_ENVIRONMENT,
            javaOptions: List<String> = emptyList(),
            output: (worker: Int, line: String) -> Unit = PRINT_LINES,
        ): WorkerProcesses {
            require(count >= 1) { "count must be at least 1, but was $count" }
            val started = ArrayList<Worker>()
            try {
                for (i in 0 until count) {
                    val pb = ProcessBuilder(command(mainClass, javaOptions) + args(i)).redirectErrorStream(true)
                    pb.environment().putAll(environment(i))
                    val w = Worker(i, pb.start())
                    started += w
                    w.pump = Thread.ofPlatform().daemon().name("worker-$i-output").start {
                        runCatching {
                            BufferedReader(InputStreamReader(w.process.inputStream)).useLines { lines ->
                                lines.forEach { line ->
                                    synchronized(w.tail) {
                                        w.tail.addLast(line)
                                        if (w.tail.size > TAIL_LINES) w.tail.removeFirst()
                                    }
                                    // a failing callback must not stop the reading: the worker would block on a full pipe
                                    runCatching { output(i, line) }
                                }
                            }
                        }
                    }
                }
            } catch (t: Throwable) {
                WorkerProcesses(started).kill()
                throw t
            }
            return WorkerProcesses(started)
        }

        /** `java`, this JVM's options (less debugger agents, whose ports would clash), classpath, main class. */
        internal fun command(mainClass: String, javaOptions: List<String>): List<String> {
            val java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java")
            val inherited = ManagementFactory.getRuntimeMXBean().inputArguments
                .filterNot { it.startsWith("-agentlib:jdwp") || it.startsWith("-Xrunjdwp") }
            val native = if (inherited.any { it.startsWith("--enable-native-access") }) emptyList()
            else listOf("--enable-native-access=ALL-UNNAMED")
            return listOf(java) + inherited + native + javaOptions + listOf("-cp", System.getProperty("java.class.path"), mainClass)
        }
    }
}
