package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayPool
import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray
import kotlin.time.Duration
import kotlin.time.toJavaDuration

/**
 * A free slot of the pool, suspending while none is free, without blocking the caller's thread.
 * Close the array to give the slot back, or send it through a queue. Cancelling the coroutine
 * ends the wait; a slot taken at that moment goes straight back.
 *
 * @throws dev.sharedarrays.WaitTimeoutException if no slot came free within [timeout]
 */
public suspend fun <T : DType<T>> ArrayPool<T>.acquire(timeout: Duration = Duration.INFINITE): SharedNDArray<T> =
    acquireAsync(timeout.toJavaDuration()).awaitOrClose()
