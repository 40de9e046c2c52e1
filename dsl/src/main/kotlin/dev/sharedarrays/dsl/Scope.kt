package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.I8
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedBarrier
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U16
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.U8
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
public class SharedArraysScope @PublishedApi internal constructor() {
    private val held = ArrayList<Pair<AutoCloseable, Boolean>>()

    /** A zero-filled F64 array of [shape]; [name] is its shm name (generated: `sa-...`). */
    public fun f64(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<F64> =
        create(F64.TYPE, shape, name, backend)

    /** A zero-filled F32 array; see [f64]. */
    public fun f32(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<F32> =
        create(F32.TYPE, shape, name, backend)

    /** A zero-filled I64 array; see [f64]. */
    public fun i64(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<I64> =
        create(I64.TYPE, shape, name, backend)

    /** A zero-filled I32 array; see [f64]. */
    public fun i32(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<I32> =
        create(I32.TYPE, shape, name, backend)

    /** A zero-filled I16 array; see [f64]. */
    public fun i16(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<I16> =
        create(I16.TYPE, shape, name, backend)

    /** A zero-filled I8 array; see [f64]. */
    public fun i8(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<I8> =
        create(I8.TYPE, shape, name, backend)

    /** A zero-filled U64 array; see [f64]. */
    public fun u64(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<U64> =
        create(U64.TYPE, shape, name, backend)

    /** A zero-filled U32 array; see [f64]. */
    public fun u32(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<U32> =
        create(U32.TYPE, shape, name, backend)

    /** A zero-filled U16 array; see [f64]. */
    public fun u16(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<U16> =
        create(U16.TYPE, shape, name, backend)

    /** A zero-filled U8 array; see [f64]. */
    public fun u8(vararg shape: Int, name: String? = null, backend: Backend? = null): SharedNDArray<U8> =
        create(U8.TYPE, shape, name, backend)

    private fun <T : DType<T>> create(dtype: T, shape: IntArray, name: String?, backend: Backend?): SharedNDArray<T> {
        var options = CreateOptions.defaults()
        if (name != null) options = options.name(name)
        if (backend != null) options = options.backend(backend)
        return create(dtype, LongArray(shape.size) { shape[it].toLong() }, options)
    }

    /** An array of any shape (dimensions past 2^31 too) created as [options] say; destroyed with the scope. */
    public fun <T : DType<T>> create(dtype: T, shape: LongArray, options: CreateOptions = CreateOptions.defaults()): SharedNDArray<T> =
        keep(SharedArrays.create(dtype, shape, options), destroy = true)

    /** Attaches the array [handle] names, typed; closed when the scope ends. */
    public inline fun <reified T : DType<T>> attach(handle: ArrayHandle): SharedNDArray<T> =
        register(SharedArrays.attach(handle, dtypeOf<T>()))

    /** [attach] by the handle's string form. */
    public inline fun <reified T : DType<T>> attach(handle: String): SharedNDArray<T> = attach<T>(ArrayHandle.parse(handle))

    /** A [SharedBarrier] for [parties] parties; closed (and so removed) with the scope. */
    public fun barrier(parties: Int, options: CreateOptions = CreateOptions.defaults()): SharedBarrier =
        keep(SharedBarrier.create(parties, options), destroy = true)

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
        args: (worker: Int) -> List<String> = { emptyList() },
        environment: (worker: Int) -> Map<String, String> = { emptyMap() },
        javaOptions: List<String> = emptyList(),
        output: (worker: Int, line: String) -> Unit = { w, line -> println("[worker $w] $line") },
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
