package dev.sharedarrays.consumer

import dev.sharedarrays.F64
import dev.sharedarrays.dsl.acquire
import dev.sharedarrays.dsl.get
import dev.sharedarrays.dsl.iterator
import dev.sharedarrays.dsl.plusAssign
import dev.sharedarrays.dsl.send
import dev.sharedarrays.dsl.set
import dev.sharedarrays.dsl.shape
import dev.sharedarrays.dsl.sharedArrays
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking

/** What a user's program does with the DSL, compiled by Kotlin 2.0: arrays, operators, properties, a pool and a queue. */
fun streamSum(frames: Int): Double = runBlocking {
    sharedArrays {
        val a = f64(2, 3)
        a[1, 2] = 4.5
        a += 1.0
        check(a.shape.contentEquals(longArrayOf(2, 3)))
        val pool = pool(F64.TYPE, 2, 3)
        val q = queue(2)
        launch {
            for (i in 0 until frames) {
                val s = pool.acquire()
                s[0] = a[1, 2] + i
                q.send(s)
            }
            q.end()
        }
        var sum = 0.0
        for (s in q) {
            sum += s.getDouble(0)
            s.close()
        }
        sum
    }
}

fun main() {
    println(streamSum(10))
}
