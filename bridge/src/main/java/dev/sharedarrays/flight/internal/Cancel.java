package dev.sharedarrays.flight.internal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A transfer's cancellation: the future of forwardAsync/pullAsync sets it; the transfer's waits look
 * at it every slice, and the call it has open (a Flight stream) is cancelled at once.
 */
public final class Cancel {
    private static final Runnable DONE = () -> { };
    private final AtomicReference<Runnable> onCancel = new AtomicReference<>(() -> { });
    private volatile boolean cancelled;

    /** Never cancelled (the blocking forms). */
    public static Cancel none() {
        return new Cancel();
    }

    public boolean isCancelled() {
        return cancelled;
    }

    public void cancel() {
        cancelled = true;
        Runnable r = onCancel.getAndSet(DONE);
        if (r != DONE) {
            r.run();
        }
    }

    /** Runs {@code r} on cancel (at once if already cancelled). */
    public void onCancel(Runnable r) {
        Runnable prev = onCancel.get();
        if (prev == DONE || !onCancel.compareAndSet(prev, r)) {
            r.run();
        }
    }
}
