package dev.sharedarrays.dsl

// numpy's rule for a Python scalar, in Kotlin's number types: a Double or Float is a float scalar,
// any other Number an integer one (exact, never through a double).

/** True for a Double or a Float. */
@PublishedApi
internal fun Number.isFloatScalar(): Boolean = this is Double || this is Float

/** [ifDouble] of a float scalar, [ifLong] of an integer one. */
internal inline fun <R> Number.byKind(ifDouble: (Double) -> R, ifLong: (Long) -> R): R =
    if (isFloatScalar()) ifDouble(toDouble()) else ifLong(toLong())
