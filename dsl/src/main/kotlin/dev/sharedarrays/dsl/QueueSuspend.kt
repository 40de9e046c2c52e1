package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.DType
import dev.sharedarrays.SharedNDArray
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.future.await

/**
 * Sends [array], suspending while the queue is full, without blocking the caller's thread (the
 * wait runs on a thread of the library's). A pool slot moves to the receiver and [array] is
 * closed; anything else is sent by handle and view. Cancelling the coroutine ends the wait and
 * sends nothing.
 *
 * @throws dev.sharedarrays.WaitTimeoutException if the queue stayed full for [timeout]
 * @throws IllegalStateException if the queue has ended
 */
public suspend fun ArrayQueue.send(array: SharedNDArray<*>, timeout: Duration = Duration.INFINITE) {
    sendAsync(array, timeout.toJavaDuration()).await()
}

/**
 * The next array, suspending while the queue is empty, without blocking the caller's thread;
 * null once the queue has ended and is drained. Cancelling the coroutine ends the wait; a
 * message taken at that moment is closed (its pool slot goes back): delivery is at most once.
 *
 * @throws dev.sharedarrays.WaitTimeoutException if no message came within [timeout]
 * @throws dev.sharedarrays.QueueAbandonedException if the queue is empty and every registered producer died
 */
public suspend fun ArrayQueue.receive(timeout: Duration = Duration.INFINITE): SharedNDArray<*>? =
    receiveAsync(timeout.toJavaDuration()).awaitOrClose()

/**
 * [receive] of an array that must hold [dtype].
 *
 * @throws dev.sharedarrays.DTypeMismatchException if it holds another type (it is closed)
 */
public suspend fun <T : DType<T>> ArrayQueue.receive(dtype: T, timeout: Duration = Duration.INFINITE): SharedNDArray<T>? {
    val a = receive(timeout) ?: return null
    try {
        return a.`as`(dtype)
    } catch (e: dev.sharedarrays.DTypeMismatchException) {
        a.close()
        throw e
    }
}

/**
 * The queue's messages as a cold [Flow] that completes when the queue has ended and is drained.
 * Each array is the collector's: close it when done (a pool slot then goes back to its pool).
 */
public fun ArrayQueue.asFlow(timeout: Duration = Duration.INFINITE): Flow<SharedNDArray<*>> = flow {
    while (true) {
        emit(receive(timeout) ?: break)
    }
}

/** [asFlow] of arrays that must hold [dtype]. */
public fun <T : DType<T>> ArrayQueue.asFlow(dtype: T, timeout: Duration = Duration.INFINITE): Flow<SharedNDArray<T>> = flow {
    while (true) {
        emit(receive(dtype, timeout) ?: break)
    }
}

/** `for (a in queue) { ... }` inside a coroutine: suspends for each message, ends when the queue has ended and is drained. */
public operator fun ArrayQueue.iterator(): QueueIterator = QueueIterator(this)

/** The suspending iterator of `for (a in queue)`; each array is the loop body's to close. */
public class QueueIterator internal constructor(private val queue: ArrayQueue) {
    private var next: SharedNDArray<*>? = null

    /** Suspends until a message arrives (true) or the queue has ended and is drained (false). */
    public suspend operator fun hasNext(): Boolean {
        if (next == null) {
            next = queue.receive()
        }
        return next != null
    }

    public operator fun next(): SharedNDArray<*> {
        val a = next ?: throw NoSuchElementException("the queue ${queue.handle()} has ended and is drained; call hasNext() first")
        next = null
        return a
    }
}
