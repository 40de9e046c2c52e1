package dev.sharedarrays.internal.sync;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Daemon threads that block in waits for callers that must not (coroutine dispatchers, event
 * loops): the {@code *Async} methods. A wait sees the future's cancellation within one sleep slice.
 */
public final class WaitThreads {
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "shared-arrays-wait");
        t.setDaemon(true);
        return t;
    });

    private WaitThreads() {
    }

    /**
     * A timeout in nanoseconds, saturated at {@code Long.MAX_VALUE} (no limit).
     *
     * @throws IllegalArgumentException if {@code timeout.isNegative()}
     */
    public static long nanos(java.time.Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout cannot be negative, but was " + timeout);
        }
        return Futex.nanos(timeout);
    }

    /**
     * Runs {@code wait} (given "is the future cancelled") on a wait thread. A result that arrives
     * after the future was cancelled goes to {@code orphan} (which closes it: a received array
     * nobody will see must give its pool slot back).
     */
    public static <R> CompletableFuture<R> submit(Function<BooleanSupplier, R> wait, Consumer<R> orphan) {
        CompletableFuture<R> f = new CompletableFuture<>();
        THREADS.execute(() -> {
            try {
                R r = wait.apply(f::isCancelled);
                if (!f.complete(r) && r != null) {
                    orphan.accept(r);
                }
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }
}
