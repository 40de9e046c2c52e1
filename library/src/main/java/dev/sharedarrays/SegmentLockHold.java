package dev.sharedarrays;

import dev.sharedarrays.internal.array.Locking;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.segment.Segment;

/** A lock {@link Locks} took of a segment; one object, no lambda and no captured array. Used by one thread. */
final class SegmentLockHold implements HeldLock {
    private final Segment segment;
    private final boolean write;
    private boolean open = true;

    private SegmentLockHold(Segment segment, boolean write) {
        this.segment = segment;
        this.write = write;
    }

    /** Takes an open array's write or read lock, waiting at most timeoutNanos ({@code Long.MAX_VALUE}: no limit). */
    static HeldLock take(ArrayCore array, boolean write, long timeoutNanos) {
        array.checkOpen();
        Locking.hold(array.segment(), write, timeoutNanos);
        return new SegmentLockHold(array.segment(), write);
    }

    @Override
    public void close() {
        if (!open) {
            return;
        }
        Locking.release(segment, write);
        open = false;
    }
}
