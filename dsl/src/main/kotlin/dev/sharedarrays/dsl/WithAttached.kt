package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.DType
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray

/**
 * Attaches the array [handle] names, runs [block] with it and closes it after, also when
 * [block] throws (gridr's `shared_array_wrap`): `withAttached<F64, Double>(h) { it.sum() }`.
 */
public inline fun <reified T : DType<T>, R> withAttached(handle: ArrayHandle, block: (SharedNDArray<T>) -> R): R =
    SharedArrays.attach(handle, dtypeOf<T>()).use(block)

/**
 * Attaches every array of [handles] (any element types), runs [block] with them in that order
 * and closes them all after, also when attaching one of them or [block] fails.
 */
public inline fun <R> withAttached(handles: List<ArrayHandle>, block: (List<SharedNDArray<*>>) -> R): R =
    sharedArrays {
        block(handles.map { register(SharedArrays.attach(it)) })
    }
