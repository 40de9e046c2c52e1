package dev.sharedarrays.dsl

import dev.sharedarrays.SharedNDArray
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.future.await

/**
 * Suspends until the array's change count differs from [lastSeen] (another process or thread
 * called `signalChange()`), at most [timeout], without blocking the caller's thread. Returns the
 * count: [lastSeen] if the time ran out.
 */
public suspend fun SharedNDArray<*>.awaitChange(lastSeen: Long, timeout: Duration = Duration.INFINITE): Long =
    awaitChangeAsync(lastSeen, timeout.toJavaDuration()).await()
