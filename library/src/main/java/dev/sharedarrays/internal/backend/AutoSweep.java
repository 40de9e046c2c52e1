package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Env;
import dev.sharedarrays.internal.segment.Sweeper;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sweep every create starts: unused non-persistent segments of this user in the shm
 * directory go without anyone running {@code sharedarrays sweep}. At most once per
 * {@link #PERIOD_NANOS} per process, on a daemon thread (never on the caller's path, never
 * failing the create); {@code SHARED_ARRAYS_AUTO_SWEEP=0} turns it off. A pool acquire that waits
 * while slots stay in flight starts one too (at most once per {@link #POOL_PERIOD_NANOS}): the
 * queues it removes give their slots back. Thread-safe.
 */
final class AutoSweep {
    static final String ENV = "SHARED_ARRAYS_AUTO_SWEEP";
    static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long POOL_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long NEVER = Long.MIN_VALUE;
    private static final AtomicLong LAST = new AtomicLong(NEVER);
    /** Its own clock: a create a moment ago must not hold back the sweep a stuck pool needs. */
    private static final AtomicLong LAST_FOR_POOL = new AtomicLong(NEVER);

    private AutoSweep() {
    }

    /** Starts a sweep of the shm directory unless one started less than a period ago, or it is turned off. */
    static void maybeStart() {
        maybeStart(LAST, PERIOD_NANOS);
    }

    /** {@link #maybeStart()} for a pool whose slots stay in flight, with its own clock and period. */
    static void maybeStartForPool() {
        maybeStart(LAST_FOR_POOL, POOL_PERIOD_NANOS);
    }

    private static void maybeStart(AtomicLong clock, long period) {
        try {
            if ("0".equals(Env.get(ENV))) {
                return;
            }
            long now = System.nanoTime();
            long last = clock.get();
            if ((last != NEVER && now - last < period) || !clock.compareAndSet(last, now)) {
                return;
            }
            ShmBackend.shmScanDirectory().ifPresent(dir -> Thread.ofPlatform().daemon().name("shared-arrays-auto-sweep")
                    .start(() -> sweep(dir)));
        } catch (Throwable t) {
            // a create never fails for its sweep: the next one, or sharedarrays sweep, does it
        }
    }

    private static void sweep(java.nio.file.Path dir) {
        try {
            Sweeper.sweep(List.of(dir), false, DeadQueueSlots.INSTANCE);
        } catch (Throwable t) {
            // as above
        }
    }
}
