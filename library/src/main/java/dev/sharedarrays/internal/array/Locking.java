package dev.sharedarrays.internal.array;

import dev.sharedarrays.HeldLock;
import dev.sharedarrays.internal.segment.Segment;
import java.util.function.Supplier;

/**
 * Pairs the cross-process lock calls of one array's bulk operations: each helper takes the
 * lock, runs its body and releases the lock however the body ends. A view made by
 * {@code unlocked()} has {@code locking == false}: its helpers only run the body.
 *
 * <p>Every helper first checks that a shm or file segment was not truncated (a fault inside a
 * SIMD kernel would crash the JVM, so the check comes before the memory is touched), and turns
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

    /** Takes segment's write or read lock, whatever the view's locking, and returns it held. */
    public static HeldLock hold(Segment segment, boolean write) {
        try {
            segment.checkNotTruncated();
            if (write) {
                segment.lockWrite();
            } else {
                segment.lockRead();
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
