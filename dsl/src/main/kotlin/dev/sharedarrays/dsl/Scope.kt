package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedBarrier
import dev.sharedarrays.SharedNDArray
import kotlin.contracts.ExperimentalContracts
import kotlin.contracts.InvocationKind
import kotlin.contracts.contract

/**
 * Runs [block] in a [SharedArraysScope] and then releases everything the scope holds: arrays it
 * created are destroyed, barriers it created closed (which removes them unless they were
 * created persistent), attached and registered resources closed, in reverse order. That happens on normal exit, on an exception and on coroutine cancellation
 * (which reaches the block as a `CancellationException`).
 *
 * `sharedArrays` is inline, so inside a coroutine the block may call suspending functions.
 * Errors while releasing are added to the block's exception as suppressed, or thrown (the first,
 * with the others suppressed) if the block succeeded.
 */
@OptIn(ExperimentalContracts::class)
public inline fun <R> sharedArrays(block: SharedArraysScope.() -> R): R {
    contract { callsInPlace(block, InvocationKind.EXACTLY_ONCE) }
    val scope = SharedArraysScope()
    var failure: Throwable? = null
    try {
        return scope.block()
    } catch (t: Throwable) {
        failure = t
        throw t
    } finally {
        scope.release(failure)
    }
}

/**
 * What a [sharedArrays] block can do: create arrays (one factory per element type, zero-filled,
 * the process's backend unless [Backend] says otherwise), attach arrays and barriers by handle,
 * and register resources made elsewhere so the scope releases them.
 *
 * Not thread-safe: use a scope from the coroutine (or thread) that opened it; the arrays
 * themselves may be shared with any thread.
 */
@SharedArraysDsl
public class SharedArraysScope @PublishedApi internal constructor() : ArrayFactories {
    private val held = ArrayList<Pair<AutoCloseable, Boolean>>()

    /** An array of any shape (dimensions past 2^31 too) created as [options] say; destroyed with the scope. */
    override fun <T : DType<T>> create(dtype: T, shape: LongArray, options: CreateOptions): SharedNDArray<T> =
        keep(SharedArrays.create(dtype, shape, options), destroy = true)

    /** Attaches the array [handle] names, typed; closed when the scope ends. */
    public inline fun <reified T : DType<T>> attach(handle: ArrayHandle): SharedNDArray<T> =
        register(SharedArrays.attach(handle, dtypeOf<T>()))

    /** [attach] by the handle's string form. */
    public inline fun <reified T : DType<T>> attach(handle: String): SharedNDArray<T> = attach<T>(ArrayHandle.parse(handle))

    /** A [SharedBarrier] for [parties] parties; closed (and so removed) with the scope. */
    public fun barrier(parties: Int, options: CreateOptions = CreateOptions.defaults()): SharedBarrier =
        keep(SharedBarrier.create(parties, options), destroy = true)

    /**
     * An [ArrayPool] of [slots] arrays of [slotShape]; closed (and so removed, unless [options]
     * say otherwise) with the scope.
     */
    public fun <T : DType<T>> pool(dtype: T, slots: Int, vararg slotShape: Int, options: CreateOptions = CreateOptions.defaults()): ArrayPool<T> =
        keep(ArrayPool.create(dtype, slots, LongArray(slotShape.size) { slotShape[it].toLong() }, options), destroy = true)

    /** An [ArrayQueue] of [capacity] messages; closed (ended and removed) with the scope. */
    public fun queue(capacity: Int, options: CreateOptions = CreateOptions.defaults()): ArrayQueue =
        keep(ArrayQueue.create(capacity, options), destroy = true)

    /** Attaches the pool [handle] names; closed when the scope ends. */
    public inline fun <reified T : DType<T>> attachPool(handle: ArrayHandle): ArrayPool<T> =
        register(ArrayPool.attach(handle, dtypeOf<T>()))

    /** Attaches the queue [handle] names; closed when the scope ends. */
    public fun attachQueue(handle: ArrayHandle): ArrayQueue = register(ArrayQueue.attach(handle))

    /** Attaches the barrier [handle] names; closed (its party slot given up) when the scope ends. */
    public fun attachBarrier(handle: ArrayHandle): SharedBarrier = register(SharedBarrier.attach(handle))

    /**
     * Starts worker JVMs as [WorkerProcesses.start] does; the scope kills those still running
     * when it ends, so a failing parent never leaves workers behind. [WorkerProcesses.join]
     * them inside the block.
     */
    public fun launchWorkers(
        count: Int,
        mainClass: String,
        args: (worker: Int) -> List<String> = WorkerProcesses.NO_ARGS,
        environment: (worker: Int) -> Map<String, String> = WorkerProcesses.NO_ENVIRONMENT,
        javaOptions: List<String> = emptyList(),
        output: (worker: Int, line: String) -> Unit = WorkerProcesses.PRINT_LINES,
    ): WorkerProcesses = register(WorkerProcesses.start(count, mainClass, args, environment, javaOptions, output))

    /**
     * Makes the scope close [resource] when it ends: an array made elsewhere (closing the
     * creator's non-persistent array destroys it), a barrier, [WorkerProcesses]...
     */
    public fun <A : AutoCloseable> register(resource: A): A = keep(resource, destroy = false)

    private fun <A : AutoCloseable> keep(resource: A, destroy: Boolean): A {
        held += resource to destroy
        return resource
    }

    /** Releases everything, newest first; see [sharedArrays]. */
    @PublishedApi
    internal fun release(failure: Throwable?) {
        var first: Throwable? = null
        for ((resource, destroy) in held.asReversed()) {
            try {
                if (destroy && resource is SharedNDArray<*>) resource.destroy() else resource.close()
            } catch (t: Throwable) {
                when {
                    failure != null -> failure.addSuppressed(t)
                    first == null -> first = t
                    else -> first.addSuppressed(t)
                }
            }
        }
        held.clear()
        if (first != null) throw first
    }
}
