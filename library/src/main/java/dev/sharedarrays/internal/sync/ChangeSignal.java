package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.MappedWords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.ChangeDescriptor.CHANGE_COUNT_OFFSET;
import static dev.sharedarrays.internal.sync.ChangeDescriptor.CHANGE_WAITERS_OFFSET;

/**
 * Change notification on any array: a 64-bit count in the control block, whose low 32 bits are
 * the futex word its waiters sleep on (little-endian). Signalling adds one and wakes them.
 */
public final class ChangeSignal {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();

    static {
        Backoff.link();
    }

    private ChangeSignal() {
    }

    /** Adds one to the count, wakes the waiters, returns the new count. */
    public static long signal(MemorySegment control) {
        long n = (long) MappedWords.getAndAdd(control, CHANGE_COUNT_OFFSET, 1L) + 1;
        Futex.wake(control, CHANGE_COUNT_OFFSET, CHANGE_WAITERS_OFFSET);
        return n;
    }

    public static long count(MemorySegment control) {
        return (long) LONG_VH.getVolatile(control, CHANGE_COUNT_OFFSET);
    }

    /**
     * Waits until the count differs from {@code lastSeen}, at most timeoutNanos; returns the count
     * (equal to lastSeen if the time ran out).
     *
     * @throws java.util.concurrent.CancellationException if {@code cancelled} says so first
     */
    public static long await(MemorySegment control, long lastSeen, long timeoutNanos, BooleanSupplier cancelled) {
        Wait wait = new Wait(timeoutNanos, cancelled);
        while (true) {
            long now = count(control);
            if (now != lastSeen || wait.expired()) {
                return now;
            }
            wait.pause(control, CHANGE_COUNT_OFFSET, CHANGE_WAITERS_OFFSET, (int) lastSeen);
        }
    }
}
