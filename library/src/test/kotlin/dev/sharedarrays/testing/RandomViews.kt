package dev.sharedarrays.testing

import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray
import kotlin.random.Random

/**
 * Random views for the numpy cross-checks: up to two slices with steps (1, 2, -1 or 3), then maybe
 * a transpose, as steps that both sides replay: ("s", axis, start, stop, step) with null for an
 * open end, and ("t", perm). Numpy's side replays them in its own script.
 */
object RandomViews {
    /** The steps of a random view of [shape], and the view's rank. */
    fun of(rnd: Random, shape: LongArray): Pair<List<List<Any?>>, Int> {
        val steps = mutableListOf<List<Any?>>()
        var shp = shape.toMutableList()
        repeat(rnd.nextInt(3)) {
            val axis = rnd.nextInt(shp.size)
            val len = shp[axis]
            val start = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len)
            val stop = if (rnd.nextBoolean()) null else rnd.nextLong(-len, len + 1)
            val step = listOf(1L, 2L, -1L, 3L)[rnd.nextInt(4)]
            val n = RefView.pyRange(start, stop, step, len).size
            if (n > 0) {
                steps += listOf("s", axis, start, stop, step)
                shp[axis] = n.toLong()
            }
        }
        if (shp.size > 1 && rnd.nextBoolean()) {
            val perm = shp.indices.shuffled(rnd)
            steps += listOf("t", perm)
            shp = perm.map { shp[it] }.toMutableList()
        }
        return steps to shp.size
    }

    /** The view of [a] that [steps] describe. */
    fun <T : DType<T>> replay(a: SharedNDArray<T>, steps: List<List<Any?>>): SharedNDArray<T> {
        var v = a
        for (s in steps) {
            v = if (s[0] == "s") {
                v.slice(s[1] as Int, (s[2] as Long?) ?: Long.MIN_VALUE, (s[3] as Long?) ?: Long.MAX_VALUE, s[4] as Long)
            } else {
                v.transpose(*(s[1] as List<*>).map { it as Int }.toIntArray())
            }
        }
        return v
    }
}
