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
    private final long began = System.nanoTime();
    private long checked = began;

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

    /**
     * Spins of a wait that only pause the core (about 120 ns each on this project's 2-core VM); after them each
     * spin offers the core to another thread. Enough pauses to see an answer that comes within a few µs without a
     * system call; few, as when the scheduler has put both processes on one core (it does while JIT threads are
     * busy) every pause delays the process waited for. Measured: docs/BENCHMARKS.md, "Why a round trip was bimodal".
     */
    static final int PAUSES = 30;
    /** How long a wait spins in all, about: below a futex wake-up's own latency. */
    static final long SPIN_NANOS = 50_000;

    /**
     * Spins once and returns true while the spin budget lasts (at most {@code spins} spins, about
     * {@link #SPIN_NANOS}); false: time to sleep. After the first {@link #PAUSES} spins each one
     * yields: on an idle machine that returns at once, and the wait still sees a change within a
     * microsecond; on a busy one the process waited for may need this core to make that change.
     */
    boolean spin() {
        if (spun >= spins) {
            return false;
        }
        spun++;
        if (spun <= PAUSES) {
            Thread.onSpinWait();
        } else if (System.nanoTime() - began < SPIN_NANOS) {
            Thread.yield();
        } else {
            spun = spins;
            return false;
        }
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
