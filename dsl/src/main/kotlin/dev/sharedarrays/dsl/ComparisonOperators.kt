package dev.sharedarrays.dsl

import dev.sharedarrays.Bool
import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

// Element-wise comparisons and logic, as numpy's a > 0.5, a == b, m1 & m2, ~m: each returns a
// new process-local Bool array (nothing to close). Kotlin's own comparison operators must
// return Boolean, so comparisons are infix functions: `a gt 0.5`, `(a gt 0.5) and (b le 2)`,
// `!mask`. A scalar that is a Double or Float compares as a float (an F32 array: rounded to
// float32), any other Number exactly as an integer; NaN compares false except with ne. Two
// arrays must share the element type and broadcast by numpy's rules.

private inline fun <T : DType<T>> SharedNDArray<T>.cmp(
    x: Number,
    ifDouble: SharedNDArray<T>.(Double) -> SharedNDArray<Bool>,
    ifLong: SharedNDArray<T>.(Long) -> SharedNDArray<Bool>,
): SharedNDArray<Bool> = x.byKind({ ifDouble(it) }, { ifLong(it) })

/** `a > x`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.gt(x: Number): SharedNDArray<Bool> = cmp(x, { gt(it) }, { gt(it) })

/** `a < x`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.lt(x: Number): SharedNDArray<Bool> = cmp(x, { lt(it) }, { lt(it) })

/** `a >= x`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.ge(x: Number): SharedNDArray<Bool> = cmp(x, { ge(it) }, { ge(it) })

/** `a <= x`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.le(x: Number): SharedNDArray<Bool> = cmp(x, { le(it) }, { le(it) })

/** `a == x`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.eq(x: Number): SharedNDArray<Bool> = cmp(x, { eq(it) }, { eq(it) })

/** `a != x`, element-wise (true for NaN elements). */
public infix fun <T : DType<T>> SharedNDArray<T>.ne(x: Number): SharedNDArray<Bool> = cmp(x, { ne(it) }, { ne(it) })

/** `a > b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.gt(other: SharedNDArray<T>): SharedNDArray<Bool> = gt(other)

/** `a < b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.lt(other: SharedNDArray<T>): SharedNDArray<Bool> = lt(other)

/** `a >= b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.ge(other: SharedNDArray<T>): SharedNDArray<Bool> = ge(other)

/** `a <= b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.le(other: SharedNDArray<T>): SharedNDArray<Bool> = le(other)

/** `a == b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.eq(other: SharedNDArray<T>): SharedNDArray<Bool> = eq(other)

/** `a != b`, element-wise. */
public infix fun <T : DType<T>> SharedNDArray<T>.ne(other: SharedNDArray<T>): SharedNDArray<Bool> = ne(other)

/** True where both masks are; `!mask` (the Java `not()`) negates one. */
public infix fun SharedNDArray<Bool>.and(other: SharedNDArray<Bool>): SharedNDArray<Bool> = and(other)

/** True where either mask is. */
public infix fun SharedNDArray<Bool>.or(other: SharedNDArray<Bool>): SharedNDArray<Bool> = or(other)

/** True where exactly one of the masks is. */
public infix fun SharedNDArray<Bool>.xor(other: SharedNDArray<Bool>): SharedNDArray<Bool> = xor(other)
