package dev.sharedarrays.dsl

import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.Slice

/**
 * A view by one selector per leading axis, as numpy's `a[0:2, 1, ::2]`: an `Int` or `Long`
 * picks one position and drops the axis, a range or progression (`0..1`, `1 until 3`,
 * `0 until 8 step 2`, `7 downTo 0`) slices, a [Slice] is passed on. Trailing axes not named are
 * taken whole. The view shares memory with the array.
 *
 * @throws IllegalArgumentException for another kind of selector or an empty range
 */
public operator fun <T : DType<T>> SharedNDArray<T>.get(vararg selectors: Any): SharedNDArray<T> =
    view(*Array(selectors.size) { toSlice(selectors[it]) })

/** `a[all]` style placeholder for a whole axis: `a[all, 1]`. */
public val all: Slice get() = Slice.all()

private fun toSlice(s: Any): Slice = when (s) {
    is Int -> Slice.index(s.toLong())
    is Long -> Slice.index(s)
    is Slice -> s
    is IntProgression -> progression(s.first.toLong(), s.last.toLong(), s.step.toLong(), s.isEmpty(), s)
    is LongProgression -> progression(s.first, s.last, s.step, s.isEmpty(), s)
    else -> throw IllegalArgumentException("a selector is an Int, a Long, a range or progression, or a Slice; got ${s::class.simpleName} $s")
}

private fun progression(first: Long, last: Long, step: Long, empty: Boolean, text: Any): Slice {
    require(!empty) { "range $text is empty; a view has at least one element per axis" }
    // Kotlin's last is inclusive; a stop below 0 would count from the end, so walk to the open end instead
    val stop = if (step > 0) last + 1 else if (last - 1 < 0) Long.MAX_VALUE else last - 1
    return Slice.of(first, stop, step)
}
