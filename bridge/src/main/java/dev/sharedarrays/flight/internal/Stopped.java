package dev.sharedarrays.flight.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Thrown by a wait of a stream whose stop condition said so: the other end went away, the server
 * is stopping, or the transfer was cancelled. Waits that last as long as a stream look at the
 * condition every {@link #SLICE}, so that an end that went away is noticed within one slice.
 */
public final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** How long a wait goes without looking at its stop condition. */
    static final Duration SLICE = Duration.ofMillis(200);

    Stopped() {
        super(null, null, false, false);
    }

    /** Throws Stopped if {@code stop} says so. */
    static void check(BooleanSupplier stop) {
        if (stop.getAsBoolean()) {
            throw new Stopped();
        }
    }
}
