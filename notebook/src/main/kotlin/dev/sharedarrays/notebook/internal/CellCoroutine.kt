package dev.sharedarrays.notebook.internal

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.runBlocking

/**
 * The coroutine a Kotlin cell's suspending calls run in (the kernel rewrites such a statement `s` as
 * `CellCoroutine.run { s }`); an interrupt cancels it.
 */
public object CellCoroutine {
    @Volatile
    private var running: Job? = null

    /** Runs [block] in a coroutine on the cell's thread; an interrupt of the cell cancels it. */
    @JvmStatic
    public fun <T> run(block: suspend CoroutineScope.() -> T): T = runBlocking {
        val job = coroutineContext[Job]
        running = job
        try {
            block()
        } finally {
            running = null
        }
    }

    /** Cancels the running cell's coroutine; false if none runs. */
    internal fun cancel(): Boolean {
        val job = running ?: return false
        job.cancel(CancellationException("the cell was interrupted"))
        return true
    }
}
