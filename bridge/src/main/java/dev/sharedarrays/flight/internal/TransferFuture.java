package dev.sharedarrays.flight.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The future of forwardAsync/pullAsync: cancelling it cancels the transfer. It completes (or is
 * cancelled) at once; {@link #finished()} completes only once the transfer's thread returned, so
 * that whoever cancelled knows when the queue and pool are no longer in use (the Kotlin forms wait
 * for it).
 */
public final class TransferFuture extends CompletableFuture<Long> {
    private final Cancel cancel;
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    public TransferFuture(Cancel cancel) {
        this.cancel = cancel;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean r = super.cancel(mayInterruptIfRunning);
        cancel.cancel();
        return r;
    }

    /** Completes when the transfer's thread has returned, however it ended. */
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /** For the transfer's thread, last. */
    public void markFinished() {
        finished.complete(null);
    }
}
