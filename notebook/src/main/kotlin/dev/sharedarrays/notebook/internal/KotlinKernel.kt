package dev.sharedarrays.notebook.internal

import java.io.File
import java.util.concurrent.Callable
import java.util.concurrent.ExecutionException
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.Future
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import org.dflib.jjava.jupyter.kernel.LanguageInfo
import org.dflib.jjava.jupyter.kernel.ReplacementOptions
import org.dflib.jjava.jupyter.kernel.display.DisplayData

/**
 * The Kotlin kernel: each cell is compiled by Kotlin's own REPL compiler ([KotlinRepl]) and run in this
 * JVM, on a thread of its own; the value of a cell that ends in an expression is its result
 * ([CellKernel] shows it). An interrupt is cooperative: it cancels the cell's coroutine (a suspending call
 * ends) or interrupts its thread (a sleep, a wait end), and both after half a second; a cell that ignores
 * both is left running after [GRACE_SECONDS] and reported, and the kernel goes on with a new thread (a
 * restart stops it).
 */
public class KotlinKernel(version: String) : CellKernel(
    "shared-arrays Kotlin", version,
    LanguageInfo.Builder("kotlin").version(KotlinVersion.CURRENT.toString()).mimetype("text/x-kotlin")
        .fileExtension(".kt").pygments("kotlin").codemirror("text/x-kotlin").build(),
) {
    private val classpath: List<File> = System.getProperty("java.class.path").split(File.pathSeparator)
        .filter { it.isNotEmpty() && COMPILER_JARS.none { prefix -> File(it).name.startsWith(prefix) } }.map(::File)
    private val repl: KotlinRepl by lazy { KotlinRepl(classpath, IMPORTS, KotlinKernel::class.java.classLoader) }
    private val completion by lazy { KotlinCompletion(repl, classpath.filter { f -> f.isFile && LIBRARY_JARS.any { f.name.startsWith(it) } }) }
    private var cells: ExecutorService = cellThread()

    @Volatile
    private var running: Thread? = null

    @Volatile
    private var interruptedAt = 0L

    override fun onStartup() {
        super.onStartup()
        // the compiler's first cell takes seconds: spend them while the user types
        cells.submit { repl.typeOf("1") }
    }

    override fun evalRaw(source: String): Any? {
        interruptedAt = 0L
        val result = await(cells.submit(Callable {
            running = Thread.currentThread()
            try {
                repl.eval(source)
            } finally {
                running = null
                Thread.interrupted()
            }
        }))
        if (interruptedAt != 0L) {
            throw CellInterrupted("the cell was interrupted")
        }
        return when (result) {
            is CellResult.Value -> result.value
            is CellResult.NoValue -> null
            is CellResult.CompileError -> throw KotlinCompileError(result.errors)
        }
    }

    /** The cell's result; after an interrupt it ignored for [GRACE_SECONDS], the cell is left to run on. */
    private fun await(cell: Future<CellResult>): CellResult {
        while (true) {
            try {
                return cell.get(100, TimeUnit.MILLISECONDS)
            } catch (e: ExecutionException) {
                throw e.cause ?: e
            } catch (e: TimeoutException) {
                val at = interruptedAt
                if (at != 0L && System.nanoTime() - at > TimeUnit.MILLISECONDS.toNanos(500)) {
                    // a cancelled coroutine that did not end: a blocking call inside it
                    running?.interrupt()
                }
                if (at != 0L && System.nanoTime() - at > TimeUnit.SECONDS.toNanos(GRACE_SECONDS)) {
                    cells.shutdown()
                    cells = cellThread()
                    cells.submit { repl.abandonRunningCell() }.get()
                    throw CellInterrupted("the cell was interrupted, but it went on running (it looks neither at its " +
                        "thread's interrupt nor at its coroutine): it runs on in the background; restart the kernel to stop it")
                }
            }
        }
    }

    override fun interrupt() {
        interruptedAt = System.nanoTime()
        // a coroutine ends by its cancellation; a thread by its interrupt (a sleep, a wait)
        if (!CellCoroutine.cancel()) {
            running?.interrupt()
        }
    }

    override fun complete(code: String, at: Int): ReplacementOptions? {
        val (options, start) = onCellThread { completion.complete(code, at) } ?: return null
        return if (options.isEmpty()) null else ReplacementOptions(options, start, at)
    }

    override fun isComplete(code: String): String = when (onCellThread { repl.completeness(code) }) {
        "incomplete" -> ""
        "invalid" -> IS_COMPLETE_BAD
        null -> IS_COMPLETE_MAYBE
        else -> IS_COMPLETE_YES
    }

    override fun inspect(code: String, at: Int, extraDetail: Boolean): DisplayData? = null

    /** [work] on the compiler's thread (the compiler is used from one thread), or null after 10 s. */
    private fun <T> onCellThread(work: () -> T): T? =
        runCatching { cells.submit(Callable { work() }).get(10, TimeUnit.SECONDS) }.getOrNull()

    override fun describe(e: Exception): Failure = when (e) {
        is KotlinCompileError -> Failure("CompileError", e.message ?: "", listOf("compile error:") + e.errors)
        is CellThrew -> {
            val lines = ArrayList<String>()
            var t: Throwable? = e.error
            while (t != null) {
                lines += (if (t === e.error) "" else "Caused by: ") + t.javaClass.name + (t.message?.let { ": $it" } ?: "")
                lines += cellFrames(t.stackTrace)
                t = t.cause?.takeIf { it !== t }
            }
            Failure(e.error.javaClass.name, e.error.message ?: "", lines)
        }
        is CellInterrupted -> Failure("Interrupted", e.message ?: "", listOf(e.message ?: "interrupted"))
        else -> {
            val m = e.message ?: e.toString()
            Failure(e.javaClass.simpleName, m, listOf("${e.javaClass.simpleName}: $m"))
        }
    }

    /**
     * The frames down to the cell's last, less the kernel's own (the coroutine a cell runs in); the cell's as
     * "at cell line L", an earlier cell's by its function.
     */
    private fun cellFrames(frames: Array<StackTraceElement>): List<String> {
        val last = frames.indexOfLast { isCell(it) }
        return frames.take(if (last < 0) frames.size else last + 1).filter { !it.className.startsWith(KERNEL_PACKAGE) }.map { f ->
            when {
                !isCell(f) -> "    at $f"
                f.fileName == repl.currentSource -> "    at cell line ${f.lineNumber}"
                else -> "    at ${f.methodName} (an earlier cell, line ${f.lineNumber})"
            }
        }
    }

    private fun isCell(f: StackTraceElement): Boolean = f.className.startsWith("Line_")

    /** A cell that does not compile: each error with its line and column in the cell. */
    private class KotlinCompileError(val errors: List<String>) : RuntimeException(errors.joinToString("\n"))

    private class CellInterrupted(message: String) : RuntimeException(message)

    private companion object {
        const val GRACE_SECONDS = 2L
        const val KERNEL_PACKAGE = "dev.sharedarrays.notebook."

        /** What every cell can use without imports. */
        val IMPORTS = listOf("dev.sharedarrays.*", "dev.sharedarrays.dsl.*", "kotlinx.coroutines.*",
            "dev.sharedarrays.notebook.Notebook.display")

        /** The compiler's own jars: on the kernel's class path, not on the cells'. */
        val COMPILER_JARS = listOf("kotlin-compiler-embeddable", "kotlin-scripting-compiler", "kotlin-daemon-embeddable",
            "kotlin-build-tools")

        /** Where completion looks for extension functions. */
        val LIBRARY_JARS = listOf("sharedarrays-", "kotlin-stdlib", "kotlinx-coroutines-core")

        fun cellThread(): ExecutorService = Executors.newSingleThreadExecutor { r ->
            Thread(r, "kotlin-cell").apply { isDaemon = true }
        }
    }
}
