package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.NDArrays
import dev.sharedarrays.SharedNDArray

// numpy's concatenate and stack: concatenate(a, b, axis = 1), stack(listOf(a, b, c)). The arrays
// share one dtype (DTypeMismatchException otherwise); the result is a new process-local array.

/** [arrays] joined along the existing [axis]: shapes equal but for that axis (ShapeMismatchException naming all of them). */
public fun <T : DType<T>> concatenate(vararg arrays: SharedNDArray<T>, axis: Int = 0): SharedNDArray<T> =
    NDArrays.concatenate(arrays.toList(), axis)

/** [arrays] joined along the existing [axis]. */
public fun <T : DType<T>> concatenate(arrays: List<SharedNDArray<T>>, axis: Int = 0): SharedNDArray<T> = NDArrays.concatenate(arrays, axis)

/** [arrays] of one shape joined along a new [axis] of the result. */
public fun <T : DType<T>> stack(vararg arrays: SharedNDArray<T>, axis: Int = 0): SharedNDArray<T> = NDArrays.stack(arrays.toList(), axis)

/** [arrays] of one shape joined along a new [axis] of the result. */
public fun <T : DType<T>> stack(arrays: List<SharedNDArray<T>>, axis: Int = 0): SharedNDArray<T> = NDArrays.stack(arrays, axis)
