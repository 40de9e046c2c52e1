package dev.sharedarrays.testing

import dev.sharedarrays.Bool
import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray

/** `a <c> b` for a comparison named as numpy's ufuncs are short-named: gt, lt, ge, le, eq, ne. */
fun <T : DType<T>> compare(c: String, a: SharedNDArray<T>, b: SharedNDArray<T>): SharedNDArray<Bool> = when (c) {
    "gt" -> a.gt(b); "lt" -> a.lt(b); "ge" -> a.ge(b); "le" -> a.le(b); "eq" -> a.eq(b); else -> a.ne(b)
}

/** `a <c> s` for a float scalar; see [compare]. */
fun compare(c: String, a: SharedNDArray<*>, s: Double): SharedNDArray<Bool> = when (c) {
    "gt" -> a.gt(s); "lt" -> a.lt(s); "ge" -> a.ge(s); "le" -> a.le(s); "eq" -> a.eq(s); else -> a.ne(s)
}

/** `a <c> s` for an integer scalar; see [compare]. */
fun compare(c: String, a: SharedNDArray<*>, s: Long): SharedNDArray<Bool> = when (c) {
    "gt" -> a.gt(s); "lt" -> a.lt(s); "ge" -> a.ge(s); "le" -> a.le(s); "eq" -> a.eq(s); else -> a.ne(s)
}
