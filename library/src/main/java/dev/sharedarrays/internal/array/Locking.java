package dev.sharedarrays.internal.array;

import dev.sharedarrays.HeldLock;
import dev.sharedarrays.internal.segment.Segment;
import java.util.function.Supplier;

/**
 * Pairs the cross-process lock calls of one array's bulk operations: each helper takes the
 * lock, runs its body and releases the lock however the body ends. A view made by
 * {@code unlocked()} has {@code locking == false}: its helpers only run the body.
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
        beginWrite();
        try {
            body.run();
        } finally {
            endWrite();
        }
    }

    public <R> R read(Supplier<R> body) {
        beginRead();
        try {
            return body.get();
        } finally {
            endRead();
        }
    }

    /**
     * Runs body holding this array's write lock and {@code other}'s read lock, taken in the
     * order of array id so that {@code x += y} and {@code y += x} in two processes cannot
     * deadlock; one lock when both are the same array.
     */
    public void writeReading(Locking other, Runnable body) {
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

    /** Takes segment's write or read lock, whatever the view's locking, and returns it held. */
    public static HeldLock hold(Segment segment, boolean write) {
        if (write) {
            segment.lockWrite();
        } else {
            segment.lockRead();
        }
        boolean[] open = {true};
        return () -> {
            if (open[0]) {
                if (write) {
                    segment.unlockWrite();
                } else {
                    segment.unlockRead();
                }
                open[0] = false;
            }
        };
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
