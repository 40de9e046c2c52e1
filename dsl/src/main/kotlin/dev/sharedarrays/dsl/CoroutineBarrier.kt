package dev.sharedarrays.dsl

import java.util.concurrent.BrokenBarrierException
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred

/**
 * A cyclic barrier for coroutines of one JVM (for example workers sharing arrays): [await]
 * suspends until [parties] coroutines have called it, then all resume and the barrier resets.
 * Completing the barrier orders memory: writes before [await] are visible after it in every
 * party. Thread-safe.
 *
 * Cancelling a waiting coroutine breaks the barrier: the other waiters, and every later
 * [await], fail with [BrokenBarrierException] (as `java.util.concurrent.CyclicBarrier` does
 * for an interrupt), because the arrivals no longer add up.
 */
public interface CoroutineBarrier {
    /** How many calls of [await] trip the barrier. */
    public val parties: Int

    /** Arrives and suspends until all parties have; returns `parties - 1` for the first arrival, 0 for the last. */
    public suspend fun await(): Int
}

/** A [CoroutineBarrier] for [parties] coroutines. */
public fun CoroutineBarrier(parties: Int): CoroutineBarrier {
    require(parties >= 1) { "parties must be at least 1, but was $parties" }
    return CoroutineBarrierImpl(parties)
}

internal class CoroutineBarrierImpl(override val parties: Int) : CoroutineBarrier {
    private val lock = Any()
    private var arrived = 0
    private var gate = CompletableDeferred<Unit>()
    private var broken = false

    override suspend fun await(): Int {
        val gate: CompletableDeferred<Unit>
        val index: Int
        synchronized(lock) {
            gate = this.gate
            if (broken) throw BrokenBarrierException("the barrier is broken: a party was cancelled while waiting")
            index = parties - 1 - arrived
            if (++arrived == parties) {
                arrived = 0
                this.gate = CompletableDeferred()
                gate.complete(Unit)
            }
        }
        try {
            gate.await()
        } catch (e: CancellationException) {
            synchronized(lock) {
                if (gate.completeExceptionally(BrokenBarrierException("the barrier is broken: a party was cancelled while waiting"))) {
                    broken = true
                }
            }
            throw e
        }
        return index
    }
}
