package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.DType
import dev.sharedarrays.DTypeMismatchException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedBarrier
import dev.sharedarrays.SharedNDArray

/**
 * Attaches the array [handle] names, typed: `attach<F64>(handle)`. The caller owns the view and
 * must close it (or use `use {}`).
 *
 * @throws DTypeMismatchException if the array holds another element type (it is detached again)
 */
public inline fun <reified T : DType<T>> attach(handle: ArrayHandle): SharedNDArray<T> =
    SharedArrays.attach(handle, dtypeOf<T>())

/** [attach] by the handle's string form. */
public inline fun <reified T : DType<T>> attach(handle: String): SharedNDArray<T> =
    attach<T>(ArrayHandle.parse(handle))

/** The handle to pass to another process, as a property: `val h: ArrayHandle = a.handle`. */
public val SharedNDArray<*>.handle: ArrayHandle get() = handle()

/** The barrier's handle, as a property. */
public val SharedBarrier.handle: ArrayHandle get() = handle()
