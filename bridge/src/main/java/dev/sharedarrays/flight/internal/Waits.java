package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.WaitTimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The delivery pump's waits ({@link Delivery}), which last as long as the stream does: local waits
 * in slices ({@link Stopped#SLICE}), so that a stream whose other end went away (cancelled, failed)
 * is noticed within one slice; {@link Stopped} once {@code stop} says so.
 */
public final class Waits {
    private Waits() {
    }

    /** The next message, or null once the queue ended and drained. */
    public static SharedNDArray<?> receive(ArrayQueue q, BooleanSupplier stop) {
        while (true) {
            Stopped.check(stop);
            try {
                return q.receive(Stopped.SLICE);
            } catch (WaitTimeoutException e) {
                // a slice without a message: look at stop, wait again
            }
        }
    }

    public static <T extends DType<T>> SharedNDArray<T> acquire(ArrayPool<T> pool, BooleanSupplier stop) {
        while (true) {
            Stopped.check(stop);
            try {
                return pool.acquire(Stopped.SLICE);
            } catch (WaitTimeoutException e) {
                // every slot is held (backpressure): wait again
            }
        }
    }

    /** Sends, waiting while the queue is full; on Stopped the array is still the caller's. */
    public static void send(ArrayQueue q, SharedNDArray<?> a, BooleanSupplier stop) {
        while (true) {
            Stopped.check(stop);
            try {
                q.send(a, Stopped.SLICE);
                return;
            } catch (WaitTimeoutException e) {
                // full (backpressure): wait again
            }
        }
    }

    /**
     * Until gRPC can take another message without buffering it (its flow-control window). A short
     * park serves both ends (a server call and a client call) with one code path.
     */
    public static void ready(BooleanSupplier isReady, BooleanSupplier stop) {
        while (!isReady.getAsBoolean()) {
            Stopped.check(stop);
            LockSupport.parkNanos(50_000);
        }
    }

    /**
     * Until {@code ok}; {@link Stalled} once {@code progress} (a count that grows when the other
     * end takes something) stood still for stallNanos. Parks 50 µs at first, then up to 1 ms.
     */
    static void until(BooleanSupplier ok, BooleanSupplier stop, java.util.function.LongSupplier progress, long stallNanos,
                      java.util.function.Supplier<String> stalled) {
        long seen = progress.getAsLong();
        long since = System.nanoTime();
        long park = 50_000;
        while (!ok.getAsBoolean()) {
            Stopped.check(stop);
            long now = progress.getAsLong();
            if (now != seen) {
                seen = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > stallNanos) {
                throw new Stalled(stalled.get());
            }
            LockSupport.parkNanos(park);
            park = Math.min(1_000_000, park + park / 8);
        }
    }
}
