package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

// In-place arithmetic, as numpy's a += b: with another array of the same element type and shape
// (a += a doubles; overlapping views behave as if the right side were copied first), or with a
// scalar. Integer arrays wrap in their width, divide with floor division, and refuse a zero
// divisor (ArithmeticException, nothing written), a fractional scalar and a scalar out of their
// range (as numpy 2 does).

private fun scalar(x: Number, ifDouble: (Double) -> Unit, ifLong: (Long) -> Unit) = x.byKind(ifDouble, ifLong)

/** Adds [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.plusAssign(other: SharedNDArray<T>): Unit = add(other)

/** Subtracts [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.minusAssign(other: SharedNDArray<T>): Unit = sub(other)

/** Multiplies by [other] element-wise, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.timesAssign(other: SharedNDArray<T>): Unit = mul(other)

/** Divides by [other] element-wise, in place (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.divAssign(other: SharedNDArray<T>): Unit = divide(other)

/** Adds a scalar to every element, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.plusAssign(x: Number): Unit = scalar(x, ::add, ::add)

/** Subtracts a scalar from every element, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.minusAssign(x: Number): Unit = scalar(x, ::sub, ::sub)

/** Multiplies every element by a scalar, in place. */
public operator fun <T : DType<T>> SharedNDArray<T>.timesAssign(x: Number): Unit = scalar(x, ::mul, ::mul)

/** Divides every element by a scalar, in place (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.divAssign(x: Number): Unit = scalar(x, ::divide, ::divide)

// Out-of-place arithmetic, as numpy's c = a + b: a new process-local array (no file, freed by the
// garbage collector; share() copies it into shared memory). Arrays broadcast by numpy's rule, so a
// row adds to every row of a matrix. Java's plus/minus/times members serve a + b, a - 1.0, a * 2;
// these add division, negation and a scalar on the left. Declare arrays with val: for a var,
// Kotlin cannot choose between a = a + b and the in-place a += b.

/** Divides element-wise into a new array, broadcast (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.div(other: SharedNDArray<T>): SharedNDArray<T> = dividedBy(other)

/** Adds a scalar of any Kotlin number type into a new array. */
public operator fun <T : DType<T>> SharedNDArray<T>.plus(x: Number): SharedNDArray<T> =
    x.byKind({ plus(it) }, { plus(it) })

/** Subtracts a scalar into a new array. */
public operator fun <T : DType<T>> SharedNDArray<T>.minus(x: Number): SharedNDArray<T> =
    x.byKind({ minus(it) }, { minus(it) })

/** Multiplies by a scalar into a new array. */
public operator fun <T : DType<T>> SharedNDArray<T>.times(x: Number): SharedNDArray<T> =
    x.byKind({ times(it) }, { times(it) })

/** Divides by a scalar into a new array (floor division for integer arrays). */
public operator fun <T : DType<T>> SharedNDArray<T>.div(x: Number): SharedNDArray<T> =
    x.byKind({ dividedBy(it) }, { dividedBy(it) })

/** The negated elements in a new array (integers wrap, as numpy's negative). */
public operator fun <T : DType<T>> SharedNDArray<T>.unaryMinus(): SharedNDArray<T> = negate()

/** `2.0 + a`: the scalar added to every element, in a new array. */
public operator fun <T : DType<T>> Number.plus(a: SharedNDArray<T>): SharedNDArray<T> = a + this

/** `2.0 - a`: the scalar minus every element, in a new array. */
public operator fun <T : DType<T>> Number.minus(a: SharedNDArray<T>): SharedNDArray<T> =
    byKind({ a.subtractedFrom(it) }, { a.subtractedFrom(it) })

/** `2.0 * a`: every element times the scalar, in a new array. */
public operator fun <T : DType<T>> Number.times(a: SharedNDArray<T>): SharedNDArray<T> = a * this

/** `1.0 / a`: the scalar divided by every element, in a new array (floor division for integer arrays). */
public operator fun <T : DType<T>> Number.div(a: SharedNDArray<T>): SharedNDArray<T> =
    byKind({ a.dividing(it) }, { a.dividing(it) })
