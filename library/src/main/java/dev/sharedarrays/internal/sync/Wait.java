package dev.sharedarrays.internal.sync;

import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * One bounded wait on a {@link Futex} word for a change another process makes: spin first (the
 * change is usually microseconds away), then sleep in slices no longer than the time left, and
 * say once per slice when it is time to look at the liveness of the processes waited for. One
 * instance per wait, used by one thread.
 */
final class Wait {
    /** Spins before the first sleep, at most; {@link Backoff} also stops after about 50 µs. */
    static final int SPINS = 3000;

    private final long deadline;
    private final boolean forever;
    private final BooleanSupplier cancelled;
    private final Backoff backoff;

    /** A wait of at most timeoutNanos ({@code Long.MAX_VALUE}: no limit) that {@code cancelled} can end. */
    Wait(long timeoutNanos, BooleanSupplier cancelled) {
        this(timeoutNanos, cancelled, SPINS);
    }

    /** The same, spinning {@code spins} times before the first sleep. */
    Wait(long timeoutNanos, BooleanSupplier cancelled, int spins) {
        this.forever = timeoutNanos == Long.MAX_VALUE;
        this.deadline = System.nanoTime() + (forever ? 0 : timeoutNanos);
        this.cancelled = cancelled;
        this.backoff = new Backoff(spins);
    }

    /** True once the time is up. */
    boolean expired() {
        return !forever && System.nanoTime() - deadline >= 0;
    }

    /** True once per slice: look whether the processes waited for still run. */
    boolean livenessDue() {
        return backoff.livenessDue();
    }

    /**
     * Spins once, or sleeps while the word at wordOffset holds {@code seen}, at most one slice.
     *
     * @throws CancellationException if the wait was cancelled
     */
    void pause(java.lang.foreign.MemorySegment m, long wordOffset, long waitersOffset, int seen) {
        if (cancelled.getAsBoolean()) {
            throw new CancellationException("the wait was cancelled");
        }
        if (backoff.spin()) {
            return;
        }
        long left = forever ? Futex.SLICE_NANOS : deadline - System.nanoTime();
        if (left > 0) {
            Futex.sleep(m, wordOffset, waitersOffset, seen, Math.min(Futex.SLICE_NANOS, left));
        }
    }
}
