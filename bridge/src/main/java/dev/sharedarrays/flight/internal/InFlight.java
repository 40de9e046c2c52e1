package dev.sharedarrays.flight.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shared-memory buffers of one stream that gRPC may still read (zero-copy writes hold them
 * until they are on the socket), plus one count for the stream itself. The queue whose pools back
 * them must stay mapped until the count reaches zero: closing it earlier unmaps memory that a
 * Netty thread is about to copy to the socket.
 */
public final class InFlight {
    private final AtomicInteger count = new AtomicInteger(1);
    private final AtomicLong released = new AtomicLong();
    private final CountDownLatch zero = new CountDownLatch(1);
    private final Runnable atZero;

    /** atZero runs once, on the thread that lets go of the last buffer (or ends the stream). */
    public InFlight(Runnable atZero) {
        this.atZero = atZero;
    }

    /** A buffer goes out; {@link #release} when Arrow lets go of it. */
    public void add() {
        count.incrementAndGet();
    }

    public void release() {
        released.incrementAndGet();
        drop();
    }

    private void drop() {
        if (count.decrementAndGet() == 0) {
            try {
                atZero.run();
            } finally {
                zero.countDown();
            }
        }
    }

    /** Buffers gRPC holds now. */
    public int held() {
        return Math.max(0, count.get() - 1);
    }

    /** How many times a buffer was let go of so far: grows while the other end takes what is sent. */
    public long released() {
        return released.get();
    }

    /** The stream is done (its own count); atZero runs once gRPC let go of the buffers too. */
    public void end() {
        drop();
    }

    /** The stream is done (its own count); waits at most millis for gRPC to let go of the buffers. True if it did. */
    public boolean endAndAwait(long millis) throws InterruptedException {
        drop();
        return zero.await(millis, TimeUnit.MILLISECONDS);
    }
}
