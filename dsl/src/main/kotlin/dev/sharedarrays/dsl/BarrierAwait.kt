package dev.sharedarrays.dsl

import dev.sharedarrays.BarrierBrokenException
import dev.sharedarrays.SharedBarrier
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.future.await

/**
 * Arrives at the cross-process barrier and suspends until every party has arrived, without
 * blocking the caller's thread (the wait runs on a thread of the library's). Cancelling the
 * coroutine breaks the barrier for the other parties, as an interrupted wait does.
 *
 * @return the arrival index: `parties - 1` for the first to arrive, 0 for the last
 * @throws BarrierBrokenException if a registered party died, a wait timed out or was cancelled
 */
public suspend fun SharedBarrier.await(timeout: Duration = Duration.INFINITE): Int =
    awaitAsync(timeout.toJavaDuration()).await()
