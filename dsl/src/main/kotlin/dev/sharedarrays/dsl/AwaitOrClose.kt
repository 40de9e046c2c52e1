package dev.sharedarrays.dsl

import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.suspendCancellableCoroutine

/**
 * Awaits a future of something to close (an array holding a pool slot) without losing it: a
 * value that arrives as the coroutine is cancelled is closed instead of dropped, so its slot
 * goes back (kotlinx's `await` would drop it). Cancelling the coroutine cancels the future.
 */
internal suspend fun <R : AutoCloseable?> CompletableFuture<R>.awaitOrClose(): R = suspendCancellableCoroutine { cont ->
    whenComplete { value, error ->
        if (error != null) {
            cont.resumeWithException((error as? CompletionException)?.cause ?: error)
        } else {
            cont.resume(value) { _, undelivered, _ -> undelivered?.close() }
        }
    }
    cont.invokeOnCancellation { cancel(false) }
}
