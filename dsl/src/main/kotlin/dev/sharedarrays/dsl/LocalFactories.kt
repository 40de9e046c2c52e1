package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayRandom
import dev.sharedarrays.DType
import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.NDArrays
import dev.sharedarrays.SharedNDArray

// numpy's constructors as top-level functions: zeros<F64>(3, 4), ones<I32>(5), full<F64>(2.5, 3, 4),
// arange(10), arange(0.0, 1.0, 0.1), linspace(0.0, 1.0, 5), random(42).normal(1000). The element
// type is the type argument. Results are process-local arrays (no file, nothing to close; the
// garbage collector frees them); share() copies one into shared memory. Unlike f64(...) in
// sharedArrays {}, nothing here creates a shared segment.

@PublishedApi
internal fun longs(shape: IntArray): LongArray = LongArray(shape.size) { shape[it].toLong() }

/** A zero-filled array of element type [T]: `zeros<F64>(3, 4)`, numpy's `np.zeros((3, 4))`. */
public inline fun <reified T : DType<T>> zeros(vararg shape: Int): SharedNDArray<T> = NDArrays.zeros(dtypeOf<T>(), *longs(shape))

/** An array of ones: `ones<I32>(5)`. */
public inline fun <reified T : DType<T>> ones(vararg shape: Int): SharedNDArray<T> = NDArrays.ones(dtypeOf<T>(), *longs(shape))

/**
 * An array with every element [value]: `full<F64>(2.5, 3, 4)`. An integer type takes a float
 * value truncated (numpy's full) and refuses one outside its range (IllegalArgumentException).
 */
public inline fun <reified T : DType<T>> full(value: Number, vararg shape: Int): SharedNDArray<T> =
    if (value.isFloatScalar()) NDArrays.full(dtypeOf<T>(), value.toDouble(), *longs(shape))
    else NDArrays.full(dtypeOf<T>(), value.toLong(), *longs(shape))

/** `0, 1, ..., stop - 1` as I64, numpy's `arange(stop)`. */
public fun arange(stop: Int): SharedNDArray<I64> = NDArrays.arange(stop.toLong())

/** `start, start + step, ...` below [stop] (above it for a negative step) as I64. */
public fun arange(start: Int, stop: Int, step: Int = 1): SharedNDArray<I64> = NDArrays.arange(start.toLong(), stop.toLong(), step.toLong())

/** As [arange] for Long bounds. */
public fun arange(start: Long, stop: Long, step: Long = 1): SharedNDArray<I64> = NDArrays.arange(start, stop, step)

/** `start, start + step, ...` below [stop] as F64, numpy's float arange bit for bit: `arange(0.0, 1.0, 0.1)`. */
public fun arange(start: Double, stop: Double, step: Double = 1.0): SharedNDArray<F64> = NDArrays.arange(start, stop, step)

/** [num] evenly spaced values from [start] to [stop] inclusive as F64, numpy's linspace (num = 50 by default, as numpy). */
public fun linspace(start: Double, stop: Double, num: Int = 50): SharedNDArray<F64> = NDArrays.linspace(start, stop, num.toLong())

/** A seeded generator of random F64 arrays (see [ArrayRandom] for the algorithm): `random(42).uniform(3, 4)`. */
public fun random(seed: Long): ArrayRandom = NDArrays.random(seed)

/** Uniform values in [low, high): `random(1).uniform(-1.0, 1.0, 1000)`. */
public fun ArrayRandom.uniform(low: Double, high: Double, vararg shape: Int): SharedNDArray<F64> = uniform(low, high, longs(shape))

/** Normal values of [mean] and standard deviation [std]: `random(1).normal(10.0, 2.0, 1000)`. */
public fun ArrayRandom.normal(mean: Double, std: Double, vararg shape: Int): SharedNDArray<F64> = normal(mean, std, longs(shape))
