@file:Suppress("EXTENSION_SHADOWED_BY_MEMBER")

package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.SharedNDArray

// numpy's axis keyword: a.sum(axis = 0), a.argmax(axis = 1), a.sort(axis = 0). Kotlin passes no
// named argument to a Java method, so a call that names `axis` lands on these, which call the
// member of the same name: a.sum(0) and a.sum(axis = 0) are the same call. A negative axis counts
// from the end; results are new process-local arrays (sort sorts in place).

/** Sums along [axis] into a new F64 array without that axis. */
public fun <T : DType<T>> SharedNDArray<T>.sum(axis: Int): SharedNDArray<F64> = sum(axis)

/** Means along [axis] into a new F64 array. */
public fun <T : DType<T>> SharedNDArray<T>.mean(axis: Int): SharedNDArray<F64> = mean(axis)

/** Minima along [axis], in this dtype (a NaN wins). */
public fun <T : DType<T>> SharedNDArray<T>.min(axis: Int): SharedNDArray<T> = min(axis)

/** Maxima along [axis], in this dtype (a NaN wins). */
public fun <T : DType<T>> SharedNDArray<T>.max(axis: Int): SharedNDArray<T> = max(axis)

/** Products along [axis] into a new F64 array (integers: numpy's wrapping 64-bit product). */
public fun <T : DType<T>> SharedNDArray<T>.prod(axis: Int): SharedNDArray<F64> = prod(axis)

/** Variances along [axis] (numpy's var with ddof = 0; `var` is a Kotlin keyword). */
public fun <T : DType<T>> SharedNDArray<T>.variance(axis: Int): SharedNDArray<F64> = variance(axis)

/** Standard deviations along [axis] (ddof = 0). */
public fun <T : DType<T>> SharedNDArray<T>.std(axis: Int): SharedNDArray<F64> = std(axis)

/** Indices along [axis] of the first minima (the first NaN if any), I64. */
public fun <T : DType<T>> SharedNDArray<T>.argmin(axis: Int): SharedNDArray<I64> = argmin(axis)

/** Indices along [axis] of the first maxima (the first NaN if any), I64. */
public fun <T : DType<T>> SharedNDArray<T>.argmax(axis: Int): SharedNDArray<I64> = argmax(axis)

/** Running sums along [axis], in numpy's dtype (F64/F32 keep theirs, signed integers I64, unsigned U64). */
public fun <T : DType<T>> SharedNDArray<T>.cumsum(axis: Int): SharedNDArray<*> = cumsum(axis)

/** Running sums along [axis] accumulated in [dtype], as numpy's `cumsum(axis, dtype=...)`: `a.cumsum(axis = 0, dtype = I64.TYPE)`. */
public fun <T : DType<T>, R : DType<R>> SharedNDArray<T>.cumsum(axis: Int, dtype: R): SharedNDArray<R> = cumsum(axis, dtype)

/** Sorts along [axis] in place (NaNs last, as numpy). */
public fun <T : DType<T>> SharedNDArray<T>.sort(axis: Int): Unit = sort(axis)

/** A sorted process-local copy, sorted along [axis]. */
public fun <T : DType<T>> SharedNDArray<T>.sorted(axis: Int): SharedNDArray<T> = sorted(axis)

/** Sorts along [axis] in place, a long lane on several cores (the result of sort). */
public fun <T : DType<T>> SharedNDArray<T>.parallelSort(axis: Int): Unit = parallelSort(axis)

/** A process-local copy sorted along [axis], a long lane on several cores (the result of sorted). */
public fun <T : DType<T>> SharedNDArray<T>.parallelSorted(axis: Int): SharedNDArray<T> = parallelSorted(axis)
