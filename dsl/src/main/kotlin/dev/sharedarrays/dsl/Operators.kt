package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

// In-place arithmetic, as numpy's a += b: with another array of the same element type and shape
// (a += a doubles; overlapping views behave as if the right side were copied first), or with a
// scalar. Integer arrays wrap in their width, divide with floor division, and refuse a zero
// divisor (ArithmeticException, nothing written), a fractional scalar and a scalar out of their
// range (as numpy 2 does).

private fun <T : DType<T>> SharedNDArray<T>.scalar(x: Number, ifDouble: (Double) -> Unit, ifLong: (Long) -> Unit) =
    when (x) {
        is Double, is Float -> ifDouble(x.toDouble())
        else -> ifLong(x.toLong())
    }

/** Adds [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.plusAssign(other: SharedNDArray<T>): Unit = add(other)

/** Subtracts [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.minusAssign(other: SharedNDArray<T>): Unit = sub(other)

/** Multiplies by [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.timesAssign(other: SharedNDArray<T>): Unit = mul(other)

/** Divides by [other] element-wise, in place (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.divAssign(other: SharedNDArray<T>): Unit = div(other)

/** Adds a scalar to every element, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.plusAssign(x: Number): Unit = scalar(x, ::add, ::add)

/** Subtracts a scalar from every element, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.minusAssign(x: Number): Unit = scalar(x, ::sub, ::sub)

/** Multiplies every element by a scalar, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.timesAssign(x: Number): Unit = scalar(x, ::mul, ::mul)

/** Divides every element by a scalar, in place (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.divAssign(x: Number): Unit = scalar(x, ::div, ::div)
