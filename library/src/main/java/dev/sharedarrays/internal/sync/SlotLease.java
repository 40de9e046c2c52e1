package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This process's hold on one pool slot, behind the slot's array: it ends exactly once, either by
 * freeing the slot (the array is closed) or by moving it into a queue (the array is sent).
 *
 * @param onEnd runs once when the lease ends either way (the pool instance's bookkeeping)
 */
public final class SlotLease {
    private final MemorySegment control;
    private final int slot;
    private final Runnable onEnd;
    private static final int ACTIVE = 0;
    private static final int MOVING = 1;
    private static final int ENDED = 2;
    /** ACTIVE, MOVING (a send is giving the slot away) or ENDED; a close during a move leaves the slot to the move. */
    private final AtomicInteger state = new AtomicInteger(ACTIVE);

    public SlotLease(MemorySegment control, int slot, Runnable onEnd) {
        this.control = control;
        this.slot = slot;
        this.onEnd = onEnd;
    }

    public int slot() {
        return slot;
    }

    public boolean isEnded() {
        return state.get() == ENDED;
    }

    /** Frees the slot, unless the lease has ended or a send is moving it. */
    public void release() {
        if (state.compareAndSet(ACTIVE, ENDED)) {
            try {
                PoolProtocol.release(control, slot, Proc.selfIdent());
            } finally {
                onEnd.run();
            }
        }
    }

    /** Ends the lease without freeing the slot: the pool's words went with its truncated file. */
    public void drop() {
        if (state.compareAndSet(ACTIVE, ENDED)) {
            onEnd.run();
        }
    }

    /**
     * Gives the slot to {@code owner} (an in-flight word); false, and the lease goes on, if this
     * process no longer owns the slot or the lease has ended.
     */
    public boolean moveTo(long owner) {
        if (!state.compareAndSet(ACTIVE, MOVING)) {
            return false;
        }
        if (!PoolProtocol.move(control, slot, Proc.selfIdent(), owner)) {
            state.set(ACTIVE);
            return false;
        }
        state.set(ENDED);
        onEnd.run();
        return true;
    }
}
