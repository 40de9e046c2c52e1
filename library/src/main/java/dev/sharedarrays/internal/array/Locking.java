package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.segment.Segment;
import java.util.function.Supplier;

/**
 * Pairs the cross-process lock calls of one array's bulk operations: each helper takes the
 * lock, runs its body and releases the lock however the body ends. A view made by
 * {@code unlocked()} has {@code locking == false}: its helpers only run the body.
 *
 * <p>Every bulk helper first checks that a shm or file segment was not truncated (one lseek: a
 * SIMD kernel that faults runs over the rest of its row, each vector access faulting, before the
 * fault surfaces; see FaultMark; {@link #hold} probes with a read instead), and turns
 * a fault the JDK reports as {@link InternalError} (SIGBUS of a scalar access to a shrunk file)
 * into a {@link dev.sharedarrays.SegmentTruncatedException}.
 */
public final class Locking {
    private final Segment segment;
    private final boolean locking;

    public Locking(Segment segment, boolean locking) {
        this.segment = segment;
        this.locking = locking;
    }

    public boolean isLocking() {
        return locking;
    }

    private long id() {
        return segment.facts().id();
    }

    public void write(Runnable body) {
        try {
            segment.checkNotTruncated();
            beginWrite();
            try {
                body.run();
            } finally {
                endWrite();
            }
            poll(segment);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    public <R> R read(Supplier<R> body) {
        try {
            segment.checkNotTruncated();
            beginRead();
            R result;
            try {
                result = body.get();
            } finally {
                endRead();
            }
            poll(segment);
            return result;
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    /**
     * Runs body holding this array's write lock and {@code other}'s read lock, taken in the
     * order of array id so that {@code x += y} and {@code y += x} in two processes cannot
     * deadlock; one lock when both are the same array. See {@link #locked}.
     */
    public void writeReading(Locking other, Runnable body) {
        locked(true, runnable(body), this, other);
    }

    /**
     * Runs body holding this array's write lock and the read locks of a and b: one lock per
     * array (the write lock for this array's), taken in the order of array id. See {@link #locked}.
     */
    public void writeReading(Locking a, Locking b, Runnable body) {
        locked(true, runnable(body), this, a, b);
    }

    private static Supplier<Void> runnable(Runnable body) {
        return () -> {
            body.run();
            return null;
        };
    }

    /**
     * The one place that orders the locks of several arrays (docs/PROTOCOL.md section 10): runs
     * body holding the write lock of all[0] if {@code writeFirst}, else its read lock, and the read
     * locks of the others. One lock per array (array id): the write lock if any of its views is
     * all[0] and {@code writeFirst}. Taken in ascending order of array id compared as unsigned
     * 64-bit numbers, so that two operations on the same arrays in two processes ({@code x += y},
     * {@code y += x}) cannot wait for each other; released in the reverse order, all of them even
     * if one release throws. A view made by {@code unlocked()} takes no lock (another, locking
     * view of its array still does).
     *
     * <p>Every shm or file segment is first checked for truncation (one lseek each), as the
     * one-array helpers do; a fault of the body is reported as the truncation of a segment that
     * shrank.
     */
    public static <R> R locked(boolean writeFirst, Supplier<R> body, Locking... all) {
        try {
            boolean mayShrink = false;
            for (int i = 0; i < all.length; i++) {
                Segment s = all[i].segment;
                if (!seenBefore(all, i)) {
                    s.checkNotTruncated();
                    mayShrink |= s.mayShrink();
                }
            }
            R result = lockedAll(writeFirst, all, body);
            if (mayShrink) {
                OutOfLineAccess.poll();
            }
            return result;
        } catch (InternalError e) {
            if (all.length == 0) {
                throw e;
            }
            Segment bad = all[0].segment;
            for (int i = all.length - 1; i >= 0; i--) {
                bad = all[i].segment.isTruncated() ? all[i].segment : bad;
            }
            throw bad.truncated(e);
        }
    }

    /** True if a view before all[i] has the same segment object (checked once). */
    private static boolean seenBefore(Locking[] all, int i) {
        for (int j = 0; j < i; j++) {
            if (all[j].segment == all[i].segment) {
                return true;
            }
        }
        return false;
    }

    private static <R> R lockedAll(boolean writeFirst, Locking[] all, Supplier<R> body) {
        Locking[] held = new Locking[all.length];
        boolean[] write = new boolean[all.length];
        int n = 0;
        for (int i = 0; i < all.length; i++) {
            Locking l = all[i];
            if (!l.locking) {
                continue;
            }
            int j = 0;
            while (j < n && held[j].id() != l.id()) {
                j++;
            }
            if (j == n) {
                held[n++] = l;
            }
            write[j] |= writeFirst && i == 0;
        }
        for (int i = 1; i < n; i++) {
            for (int j = i; j > 0 && Long.compareUnsigned(held[j - 1].id(), held[j].id()) > 0; j--) {
                Locking l = held[j];
                held[j] = held[j - 1];
                held[j - 1] = l;
                boolean w = write[j];
                write[j] = write[j - 1];
                write[j - 1] = w;
            }
        }
        int taken = 0;
        try {
            for (; taken < n; taken++) {
                if (write[taken]) {
                    held[taken].segment.lockWrite();
                } else {
                    held[taken].segment.lockRead();
                }
            }
            return body.get();
        } finally {
            unlock(held, write, taken - 1);
        }
    }

    /** Releases held[i] down to held[0], all of them even if one release throws. */
    private static void unlock(Locking[] held, boolean[] write, int i) {
        if (i < 0) {
            return;
        }
        try {
            if (write[i]) {
                held[i].segment.unlockWrite();
            } else {
                held[i].segment.unlockRead();
            }
        } finally {
            unlock(held, write, i - 1);
        }
    }

    /** Takes segment's write or read lock, whatever the view's locking; {@link #release} gives it back. */
    public static void hold(Segment segment, boolean write) {
        hold(segment, write, Long.MAX_VALUE);
    }

    /**
     * {@link #hold(Segment, boolean)} waiting at most timeoutNanos ({@code Long.MAX_VALUE}: no
     * limit); see {@link dev.sharedarrays.internal.sync.ArrayLock#lockWrite(java.lang.foreign.MemorySegment, Object, long)}.
     * A shm or file segment shrunk under the mapping is found by {@link Segment#probeNotTruncated}
     * (a read, not the bulk operations' lseek: this is the lock's hot path) before the lock's
     * atomics touch the control block, whose interpreted compare-and-set would not survive a fault.
     */
    public static void hold(Segment segment, boolean write, long timeoutNanos) {
        try {
            segment.probeNotTruncated();
            if (write) {
                segment.lockWrite(timeoutNanos);
            } else {
                segment.lockRead(timeoutNanos);
            }
            poll(segment);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    /** Gives back a lock {@link #hold} took. */
    public static void release(Segment segment, boolean write) {
        try {
            if (write) {
                segment.unlockWrite();
            } else {
                segment.unlockRead();
            }
            poll(segment);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    /** Makes a fault of the accesses before surface here, inside the caller's try (see OutOfLineAccess). */
    static void poll(Segment segment) {
        if (segment.mayShrink()) {
            OutOfLineAccess.poll();
        }
    }

    private void beginWrite() {
        if (locking) {
            segment.lockWrite();
        }
    }

    private void endWrite() {
        if (locking) {
            segment.unlockWrite();
        }
    }

    private void beginRead() {
        if (locking) {
            segment.lockRead();
        }
    }

    private void endRead() {
        if (locking) {
            segment.unlockRead();
        }
    }
}
