package dev.sharedarrays.dsl

import dev.sharedarrays.SharedBarrier
import kotlin.coroutines.CoroutineContext
import kotlin.time.Duration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope

/**
 * One worker's side of a phased computation: workers alternate phases (write their part,
 * [barrier], read everyone's). Everything a worker wrote before [barrier] is visible to every
 * worker after it.
 */
public interface Phases {
    /** This worker's number, 0 until [workers]. */
    public val worker: Int

    /** How many workers take part. */
    public val workers: Int

    /** Ends this worker's phase: suspends until every worker has ended it. */
    public suspend fun barrier()
}

/** Runs [block] as one phase and then waits at the barrier; returns what [block] returned. */
public suspend inline fun <R> Phases.phase(block: () -> R): R {
    val r = block()
    barrier()
    return r
}

/**
 * Runs [workers] coroutines of this JVM through phases: each runs [body] with its own [Phases]
 * (a [CoroutineBarrier] between them), on [context] ([Dispatchers.Default] unless given).
 * Returns their results in worker order. If one fails, the others are cancelled and the
 * failure is thrown.
 */
public suspend fun <R> runPhased(
    workers: Int,
    context: CoroutineContext = Dispatchers.Default,
    body: suspend Phases.() -> R,
): List<R> {
    require(workers >= 1) { "workers must be at least 1, but was $workers" }
    val barrier = CoroutineBarrier(workers)
    return coroutineScope {
        (0 until workers).map { w ->
            async(context) { LocalPhases(w, workers, barrier).body() }
        }.awaitAll()
    }
}

/**
 * The [Phases] of worker [worker] in a worker process: its barrier is the cross-process
 * [SharedBarrier] (register it early, see [SharedBarrier.register]); each [Phases.barrier] waits
 * at most [timeout].
 */
public fun phasesOf(barrier: SharedBarrier, worker: Int, timeout: Duration = Duration.INFINITE): Phases {
    require(worker in 0 until barrier.parties()) { "worker must be in 0 until ${barrier.parties()}, but was $worker" }
    barrier.register()
    return ProcessPhases(worker, barrier, timeout)
}

private class LocalPhases(override val worker: Int, override val workers: Int, private val b: CoroutineBarrier) : Phases {
    override suspend fun barrier() {
        b.await()
    }
}

private class ProcessPhases(override val worker: Int, private val b: SharedBarrier, private val timeout: Duration) : Phases {
    override val workers: Int get() = b.parties()

    override suspend fun barrier() {
        b.await(timeout)
    }
}
