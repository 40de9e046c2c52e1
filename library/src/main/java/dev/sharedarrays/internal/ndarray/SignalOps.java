package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.LockStatus;
import dev.sharedarrays.internal.array.Atomics;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.ArrayLock;
import dev.sharedarrays.internal.sync.ChangeSignal;
import dev.sharedarrays.internal.sync.WaitThreads;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/** The work of {@code Locks} beyond taking a lock: its status, atomic elements, and the change signal. */
public final class SignalOps {
    private SignalOps() {
    }

    public static LockStatus lockStatus(ArrayCore a) {
        MemorySegment c = a.segment().control();
        return a.segment().guard(() -> new LockStatus(ArrayLock.writerPid(c), ArrayLock.readerPids(c), ArrayLock.recoveries(c)));
    }

    public static boolean compareAndSet(ArrayCore a, long index, long expected, long value) {
        long off = atomicOffset(a, index, value, "compareAndSet");
        atomicOffset(a, index, expected, "compareAndSet");
        return a.atomic(OutOfLineAccess.COMPARE_AND_SET, off, expected, value) != 0;
    }

    public static long getAndAdd(ArrayCore a, long index, long delta) {
        long off = atomicOffset(a, index, delta, "getAndAdd");
        return a.atomic(OutOfLineAccess.GET_AND_ADD, off, delta, 0);
    }

    public static long getAndSet(ArrayCore a, long index, long value) {
        long off = atomicOffset(a, index, value, "getAndSet");
        return a.atomic(OutOfLineAccess.GET_AND_SET, off, value, 0);
    }

    public static long getVolatile(ArrayCore a, long index) {
        long off = atomicOffset(a, index, 0, "getVolatile");
        return a.atomic(OutOfLineAccess.GET_VOLATILE, off, 0, 0);
    }

    public static void setVolatile(ArrayCore a, long index, long value) {
        long off = atomicOffset(a, index, value, "setVolatile");
        a.atomic(OutOfLineAccess.SET_VOLATILE, off, value, 0);
    }

    /** The byte offset of element index for an atomic access what, with value checked to fit the element type. */
    private static long atomicOffset(ArrayCore a, long index, long value, String what) {
        Atomics.check(a.type(), value, what, a.dtype());
        return a.flatOffset(index) * a.itemSize();
    }

    public static long signalChange(ArrayCore a) {
        MemorySegment c = a.segment().control();
        return a.segment().guard(() -> ChangeSignal.signal(c));
    }

    public static long changeCount(ArrayCore a) {
        MemorySegment c = a.segment().control();
        return a.segment().guard(() -> ChangeSignal.count(c));
    }

    /** Waits until the change count differs from lastSeen or timeoutNanos pass; the count then. */
    public static long awaitChange(ArrayCore a, long lastSeen, long timeoutNanos) {
        MemorySegment c = a.segment().control();
        Thread t = Thread.currentThread();
        return a.segment().guard(() -> ChangeSignal.await(c, lastSeen, timeoutNanos, t::isInterrupted));
    }

    /** {@link #awaitChange} on a wait thread; completed at once if the count already differs. */
    public static CompletableFuture<Long> awaitChangeAsync(ArrayCore a, long lastSeen, long timeoutNanos) {
        Segment segment = a.segment();
        MemorySegment control = segment.control();
        long now = segment.guard(() -> ChangeSignal.count(control));
        if (now != lastSeen || timeoutNanos == 0) {
            return CompletableFuture.completedFuture(now);
        }
        return WaitThreads.submit(cancelled -> segment.guard(() -> ChangeSignal.await(control, lastSeen, timeoutNanos, cancelled)),
                r -> { });
    }
}
