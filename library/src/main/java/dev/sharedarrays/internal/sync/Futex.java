package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.FutexCalls;
import dev.sharedarrays.internal.os.MappedWords;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A 32-bit futex word in shared memory with a count of its sleepers beside it. Waiters sleep
 * until the word changes from the value they read; changers add one and wake. The sleeper
 * count is a hint that lets a change skip FUTEX_WAKE when nobody sleeps. Sleeps are bounded
 * ({@link #SLICE_NANOS}) so that a waiter can look between slices whether the process it
 * waits for still runs: a futex wakes nobody when its changer dies. {@link Backoff} paces the
 * spinning and the looking.
 */
final class Futex {
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    /** How long a sleeper waits before it looks at the liveness of the processes it waits for again. */
    static final long SLICE_NANOS = 50_000_000L;

    private Futex() {
    }

    /** Sleeps while the word at wordOffset holds {@code expected}, at most {@code timeoutNanos}. */
    static void sleep(MemorySegment m, long wordOffset, long waitersOffset, int expected, long timeoutNanos) {
        MappedWords.getAndAddInt(m, waitersOffset, 1);
        try {
            FutexCalls.futexWait(m.address() + wordOffset, expected, timeoutNanos);
        } finally {
            MappedWords.getAndAddInt(m, waitersOffset, -1);
        }
    }

    /** Loads and links the futex calls now; see {@link Backoff#link}. */
    static void link() {
        MemorySegment words = Arena.ofAuto().allocate(8, 4);
        sleep(words, 0, 4, 1, 1); // the word holds 0, not 1: returns at once
    }

    /** Adds one to the word and wakes every sleeper on it. */
    static void bump(MemorySegment m, long wordOffset, long waitersOffset) {
        MappedWords.getAndAddInt(m, wordOffset, 1);
        wake(m, wordOffset, waitersOffset);
    }

    /** {@link #bump} right after an access of the same page through {@link MappedWords} (a lock's release). */
    static void bumpSamePage(MemorySegment m, long wordOffset, long waitersOffset) {
        MappedWords.getAndAddIntSamePage(m, wordOffset, 1);
        wake(m, wordOffset, waitersOffset);
    }

    /** Wakes every sleeper on a word its changer has already changed (no FUTEX_WAKE if none sleeps). */
    static void wake(MemorySegment m, long wordOffset, long waitersOffset) {
        if ((int) INT_VH.getVolatile(m, waitersOffset) != 0) {
            FutexCalls.futexWake(m.address() + wordOffset, Integer.MAX_VALUE);
        }
    }

    /** The word's value now, to sleep on after the look that found nothing to do. */
    static int read(MemorySegment m, long wordOffset) {
        return (int) INT_VH.getVolatile(m, wordOffset);
    }

    /** Nanoseconds in a Duration, saturated at Long.MAX_VALUE instead of overflowing. */
    static long nanos(java.time.Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
