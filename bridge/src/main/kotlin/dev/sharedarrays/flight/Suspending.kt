@file:JvmName("FlightBridgeKt")

package dev.sharedarrays.flight

import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.DType
import dev.sharedarrays.flight.internal.TransferFuture
import java.util.concurrent.CompletableFuture
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext

/**
 * [FlightBridge.forward] without blocking a thread of the caller's: suspends until [queue] ended and
 * its messages are on host B. Cancelling the coroutine cancels the transfer and returns (throws
 * the CancellationException) once it stopped, so the queue may then be closed.
 */
public suspend fun forward(queue: ArrayQueue, location: String, name: String, options: ClientOptions = ClientOptions.defaults()): Long =
    awaitTransfer(FlightBridge.forwardAsync(queue, location, name, options))

/**
 * [FlightBridge.pull] without blocking a thread of the caller's: suspends until the remote queue
 * ended. Cancelling the coroutine cancels the Flight stream and returns once the transfer stopped
 * (the local queue gets no end).
 */
public suspend fun <T : DType<T>> pull(
    location: String,
    name: String,
    pool: ArrayPool<T>,
    queue: ArrayQueue,
    options: ClientOptions = ClientOptions.defaults(),
): Long = awaitTransfer(FlightBridge.pullAsync(location, name, pool, queue, options))

private suspend fun awaitTransfer(f: CompletableFuture<Long>): Long {
    try {
        return f.await() // cancels f when the coroutine is cancelled
    } catch (e: kotlinx.coroutines.CancellationException) {
        f.cancel(false)
        withContext(NonCancellable) { (f as TransferFuture).finished().await() }
        throw e
    }
}
