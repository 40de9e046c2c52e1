package dev.sharedarrays.internal.array;

import dev.sharedarrays.HeldLock;
import dev.sharedarrays.internal.segment.Segment;
import java.util.function.Supplier;

/**
 * Pairs the cross-process lock calls of one array's bulk operations: each helper takes the
 * lock, runs its body and releases the lock however the body ends. A view made by
 * {@code unlocked()} has {@code locking == false}: its helpers only run the body.
 *
 * <p>Every helper first checks that a shm or file segment was not truncated (a SIMD kernel that
 * faults runs over the rest of its row, each vector access faulting, before the fault surfaces;
 * see FaultMark), and turns
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
     * deadlock; one lock when both are the same array.
     */
    public void writeReading(Locking other, Runnable body) {
        try {
            segment.checkNotTruncated();
            other.segment.checkNotTruncated();
            lockedWriteReading(other, body);
            poll(segment);
        } catch (InternalError e) {
            throw (other.segment.isTruncated() ? other.segment : segment).truncated(e);
        }
    }

    private void lockedWriteReading(Locking other, Runnable body) {
        boolean same = other.id() == id();
        if (same || !other.locking) {
            beginWrite();
            if (!locking && same) {
                other.beginRead();
            }
        } else if (!locking) {
            other.beginRead();
        } else if (Long.compareUnsigned(id(), other.id()) < 0) {
            beginWrite();
            try {
                other.beginRead();
            } catch (RuntimeException | Error e) {
                endWrite();
                throw e;
            }
        } else {
            other.beginRead();
            try {
                beginWrite();
            } catch (RuntimeException | Error e) {
                other.endRead();
                throw e;
            }
        }
        try {
            body.run();
        } finally {
            try {
                endWrite();
            } finally {
                if (!same || !locking) {
                    other.endRead();
                }
            }
        }
    }

    /**
     * Runs body holding this array's write lock and the read locks of a and b: one lock per
     * array (the write lock for this array's), taken in the order of array id.
     */
    public void writeReading(Locking a, Locking b, Runnable body) {
        Locking[] all = {this, a, b};
        try {
            for (Locking l : all) {
                l.segment.checkNotTruncated();
            }
            lockedAll(all, body);
            poll(segment);
        } catch (InternalError e) {
            Segment bad = segment;
            for (Locking l : all) {
                bad = l.segment.isTruncated() ? l.segment : bad;
            }
            throw bad.truncated(e);
        }
    }

    /** all[0] is written, the others read; views that do not lock take no lock. */
    private static void lockedAll(Locking[] all, Runnable body) {
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
            write[j] |= i == 0;
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
            body.run();
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

    /** Takes segment's write or read lock, whatever the view's locking, and returns it held. */
    public static HeldLock hold(Segment segment, boolean write) {
        return hold(segment, write, Long.MAX_VALUE);
    }

    /**
     * {@link #hold(Segment, boolean)} waiting at most timeoutNanos ({@code Long.MAX_VALUE}: no
     * limit); see {@link dev.sharedarrays.internal.sync.ArrayLock#lockWrite(java.lang.foreign.MemorySegment, String, long)}.
     */
    public static HeldLock hold(Segment segment, boolean write, long timeoutNanos) {
        try {
            segment.checkNotTruncated();
            if (write) {
                segment.lockWrite(timeoutNanos);
            } else {
                segment.lockRead(timeoutNanos);
            }
            poll(segment);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
        boolean[] open = {true};
        return () -> {
            if (open[0]) {
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
                open[0] = false;
            }
        };
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
