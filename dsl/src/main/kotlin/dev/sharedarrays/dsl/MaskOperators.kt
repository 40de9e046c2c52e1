package dev.sharedarrays.dsl

import dev.sharedarrays.Bool
import dev.sharedarrays.DType
import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.Masks
import dev.sharedarrays.SharedNDArray

// numpy's where(mask, x, y) and boolean-mask indexing a[mask], a[mask] = v. Results are new
// process-local arrays (nothing to close). A scalar takes the array's element type (a Double or
// Float for an integer array must be a whole number); `where(mask, 1.0, 0.0)` is an F64 array,
// `where(mask, 1, 0)` an I64 array.

/** [x]'s element where [mask] is true, [y]'s where it is false; the three broadcast. */
public fun <T : DType<T>> where(mask: SharedNDArray<Bool>, x: SharedNDArray<T>, y: SharedNDArray<T>): SharedNDArray<T> =
    Masks.where(mask, x, y)

/** [x]'s element where [mask] is true, the scalar [y] where it is false. */
public fun <T : DType<T>> where(mask: SharedNDArray<Bool>, x: SharedNDArray<T>, y: Number): SharedNDArray<T> =
    y.byKind({ Masks.where(mask, x, it) }, { Masks.where(mask, x, it) })

/** The scalar [x] where [mask] is true, [y]'s element where it is false. */
public fun <T : DType<T>> where(mask: SharedNDArray<Bool>, x: Number, y: SharedNDArray<T>): SharedNDArray<T> =
    x.byKind({ Masks.where(mask, it, y) }, { Masks.where(mask, it, y) })

/** An F64 array of [mask]'s shape: [x] where it is true, [y] where it is false. */
public fun where(mask: SharedNDArray<Bool>, x: Double, y: Double): SharedNDArray<F64> = Masks.where(mask, x, y)

/** An I64 array of [mask]'s shape: [x] where it is true, [y] where it is false. */
public fun where(mask: SharedNDArray<Bool>, x: Long, y: Long): SharedNDArray<I64> = Masks.where(mask, x, y)

/** An I64 array of [mask]'s shape: [x] where it is true, [y] where it is false. */
public fun where(mask: SharedNDArray<Bool>, x: Int, y: Int): SharedNDArray<I64> =
    Masks.where(mask, x.toLong(), y.toLong())

/** The elements where [mask] (of this array's shape) is true, in row-major order, as a new 1-d array. */
public operator fun <T : DType<T>> SharedNDArray<T>.get(mask: SharedNDArray<Bool>): SharedNDArray<T> = masked(mask)

/** Stores [value] into the elements where [mask] is true (integer arrays: truncated and wrapped, or exact for an integer value). */
public operator fun <T : DType<T>> SharedNDArray<T>.set(mask: SharedNDArray<Bool>, value: Number): Unit =
    value.byKind({ setMasked(mask, it) }, { setMasked(mask, it) })

/** Stores [values], in order, into the elements where [mask] is true: as many as it selects, or one for all. */
public operator fun <T : DType<T>> SharedNDArray<T>.set(mask: SharedNDArray<Bool>, values: SharedNDArray<T>): Unit =
    setMasked(mask, values)
