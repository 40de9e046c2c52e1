package dev.sharedarrays.internal.sync;

import dev.sharedarrays.WaitTimeoutException;

/**
 * The pacing of one wait for another process: spin a few times (the holder is usually about to
 * let go), then sleep on a {@link Futex} word in slices, and once per slice look whether the
 * processes waited for still run. One instance per wait, used by one thread.
 */
final class Backoff {
    private final int spins;
    private int spun;
    private long checked = System.nanoTime();

    Backoff(int spins) {
        this.spins = spins;
    }

    /**
     * Loads and links what a wait runs (this class, {@link Wait}, {@link Futex}, the futex
     * downcall, the exception a timed wait ends with). Waiting for a dead process matters most at
     * the descriptor limit, where loading a class from the class path fails.
     */
    static void link() {
        Futex.link();
        new Wait(0, () -> false).expired();
        WaitTimeoutException.class.getName();
    }

    /** Spins once and returns true while the spin budget lasts; false: time to sleep. */
    boolean spin() {
        if (spun >= spins) {
            return false;
        }
        spun++;
        Thread.onSpinWait();
        return true;
    }

    /** True once per {@link Futex#SLICE_NANOS} since the wait began: time to check liveness. */
    boolean livenessDue() {
        long now = System.nanoTime();
        if (now - checked < Futex.SLICE_NANOS) {
            return false;
        }
        checked = now;
        return true;
    }
}
