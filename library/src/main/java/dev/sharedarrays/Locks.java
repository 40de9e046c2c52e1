package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.SignalOps;
import dev.sharedarrays.internal.sync.WaitThreads;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The cross-process lock and the atomic element operations of a {@link SharedNDArray} (see its
 * class doc for the lock's semantics). The lock is the whole array's, also when taken on a view.
 *
 * @param <T> the element type marker
 */
public sealed interface Locks<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /** Runs {@code action} holding this array's write lock; see {@link #lockWrite()}. */
    default void withWriteLock(Runnable action) {
        try (HeldLock ignored = lockWrite()) {
            action.run();
        }
    }

    /** Runs {@code action} holding this array's read lock: no process or thread writes under the lock meanwhile. */
    default void withReadLock(Runnable action) {
        try (HeldLock ignored = lockRead()) {
            action.run();
        }
    }

    /**
     * Takes this array's cross-process write lock and returns it held; close it on the same
     * thread. Blocks without a timeout while another holder lives (also while it is stopped; see
     * {@link #lockWrite(Duration)}); a dead holder's lock is taken over within about 50 ms.
     *
     * @throws IllegalStateException if this thread holds the read lock (no upgrade), or {@code isClosed()}
     */
    default HeldLock lockWrite() {
        return SegmentLockHold.take(core(), true, Long.MAX_VALUE);
    }

    /**
     * Takes this array's cross-process read lock (shared with other readers) and returns it held.
     *
     * @throws IllegalStateException if {@code isClosed()}
     */
    default HeldLock lockRead() {
        return SegmentLockHold.take(core(), false, Long.MAX_VALUE);
    }

    /**
     * {@link #lockWrite()} that waits at most {@code timeout} for the other threads and processes:
     * a holder that is alive but does not let go (a process stopped by SIGSTOP or a debugger, or
     * one that hangs) costs this call its timeout, not forever. A dead holder's lock is still taken
     * over. Uncontended, it costs what {@link #lockWrite()} does.
     *
     * @throws WaitTimeoutException if the lock stayed held for all of {@code timeout} (the message
     *         names the holding pid and whether it is stopped); nothing is held
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     * @throws java.util.concurrent.CancellationException if this thread was interrupted while
     *         waiting (nothing is held; the interrupt flag stays set)
     * @throws IllegalStateException if this thread holds the read lock (no upgrade), or {@code isClosed()}
     */
    default HeldLock lockWrite(Duration timeout) {
        long nanos = WaitThreads.nanos(timeout);
        return SegmentLockHold.take(core(), true, nanos);
    }

    /**
     * {@link #lockRead()} that waits at most {@code timeout} for a writer; see {@link #lockWrite(Duration)}.
     *
     * @throws WaitTimeoutException if a writer held the lock for all of {@code timeout}; nothing is held
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     * @throws java.util.concurrent.CancellationException if this thread was interrupted while
     *         waiting (nothing is held; the interrupt flag stays set)
     * @throws IllegalStateException if {@code isClosed()}
     */
    default HeldLock lockRead(Duration timeout) {
        long nanos = WaitThreads.nanos(timeout);
        return SegmentLockHold.take(core(), false, nanos);
    }

    /**
     * Who holds this array's lock right now (a snapshot, for diagnostics).
     *
     * @throws SegmentTruncatedException if another process truncated the array's file (shm and file arrays)
     */
    default LockStatus lockStatus() {
        return SignalOps.lockStatus(core());
    }

    /**
     * Atomically sets element {@code index} (flat, row-major) to {@code value} if it equals
     * {@code expected}. Atomic operations are sequentially consistent (volatile accesses) across
     * threads and processes that use them, or C atomics, on the same element.
     *
     * @return true if the element was {@code expected} and is now {@code value}
     * @throws DTypeMismatchException if {@code dtype() != I64.TYPE && dtype() != I32.TYPE}
     * @throws IllegalArgumentException if a value is out of range for I32
     * @throws IndexOutOfBoundsException if {@code index < 0 || index >= size()}
     */
    default boolean compareAndSet(long index, long expected, long value) {
        return SignalOps.compareAndSet(core(), index, expected, value);
    }

    /** Atomically adds {@code delta} to element {@code index} (wrapping) and returns the previous value; as {@link #compareAndSet}. */
    default long getAndAdd(long index, long delta) {
        return SignalOps.getAndAdd(core(), index, delta);
    }

    /** Atomically replaces element {@code index} with {@code value} and returns the previous value; as {@link #compareAndSet}. */
    default long getAndSet(long index, long value) {
        return SignalOps.getAndSet(core(), index, value);
    }

    /** Reads element {@code index} with volatile semantics; as {@link #compareAndSet}. */
    default long getVolatile(long index) {
        return SignalOps.getVolatile(core(), index);
    }

    /** Writes element {@code index} with volatile semantics; as {@link #compareAndSet}. */
    default void setVolatile(long index, long value) {
        SignalOps.setVolatile(core(), index, value);
    }

    /**
     * Adds one to this array's change count (in its control block, shared by every process and
     * view) and wakes the processes waiting in {@link #awaitChange}. For "latest frame" patterns:
     * write, then signal.
     *
     * @return the new count
     * @throws IllegalStateException if the array is closed
     * @throws SegmentTruncatedException if another process truncated the array's file (shm and file arrays)
     */
    default long signalChange() {
        return SignalOps.signalChange(core());
    }

    /** This array's change count now; see {@link #signalChange()}. */
    default long changeCount() {
        return SignalOps.changeCount(core());
    }

    /**
     * Waits until the change count differs from {@code lastSeen} (spinning briefly, then sleeping
     * on a futex: no polling), at most {@code timeout}. Writes made before {@link #signalChange()}
     * are visible after this returns the new count. Blocks the calling thread; see
     * {@link #awaitChangeAsync}.
     *
     * @return the count now: {@code lastSeen} if the time ran out
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     * @throws IllegalStateException if the array is closed
     * @throws SegmentTruncatedException if another process truncated the array's file (shm and file arrays)
     * @throws java.util.concurrent.CancellationException if this thread was interrupted while
     *         waiting (the interrupt flag stays set), as a queue's receive is: a notebook's
     *         interrupt or an executor's shutdownNow ends the wait within a futex slice (50 ms)
     */
    default long awaitChange(long lastSeen, Duration timeout) {
        return SignalOps.awaitChange(core(), lastSeen, WaitThreads.nanos(timeout));
    }

    /**
     * {@link #awaitChange} on a thread of this library's, for callers that must not block; cancelling
     * the future ends the wait. The future fails with what {@link #awaitChange} would throw.
     *
     * @throws SegmentTruncatedException if another process truncated the array's file (shm and file arrays)
     */
    default CompletableFuture<Long> awaitChangeAsync(long lastSeen, Duration timeout) {
        return SignalOps.awaitChangeAsync(core(), lastSeen, WaitThreads.nanos(timeout));
    }
}
