package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * This process's hold on one pool slot, behind the slot's array: it ends exactly once, either by
 * freeing the slot (the array is closed) or by moving it into a queue (the array is sent).
 *
 * When it ends either way, its entry in the pool instance's held leases is cleared (if still
 * this lease). A state word rather than an AtomicInteger and no callback object: a lease is made
 * per acquire and per receive, where every allocation is a share of a hand-off's time.
 */
public final class SlotLease {
    private final MemorySegment control;
    private final int slot;
    private final AtomicReferenceArray<SlotLease> held;
    /** The pool instance: an open slot keeps it reachable, so that its close at exit still frees the slot. */
    private final Object pool;
    private static final int ACTIVE = 0;
    private static final int MOVING = 1;
    private static final int ENDED = 2;
    /** ACTIVE, MOVING (a send is giving the slot away) or ENDED; a close during a move leaves the slot to the move. */
    private volatile int state; // ACTIVE, its default: an initializer would be a volatile store
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SlotLease.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public SlotLease(MemorySegment control, int slot, AtomicReferenceArray<SlotLease> held, Object pool) {
        this.control = control;
        this.slot = slot;
        this.held = held;
        this.pool = pool;
    }

    private boolean changeState(int from, int to) {
        return STATE.compareAndSet(this, from, to);
    }

    private void onEnd() {
        held.compareAndSet(slot, this, null);
    }

    public int slot() {
        return slot;
    }

    public boolean isEnded() {
        return state == ENDED;
    }

    /** Frees the slot, unless the lease has ended or a send is moving it. */
    public void release() {
        if (changeState(ACTIVE, ENDED)) {
            try {
                PoolProtocol.release(control, slot, Proc.selfIdent());
            } finally {
                onEnd();
            }
        }
    }

    /** Ends the lease without freeing the slot: the pool's words went with its truncated file. */
    public void drop() {
        if (changeState(ACTIVE, ENDED)) {
            onEnd();
        }
    }

    /**
     * Gives the slot to {@code owner} (an in-flight word); false, and the lease goes on, if this
     * process no longer owns the slot or the lease has ended.
     */
    public boolean moveTo(long owner) {
        if (!changeState(ACTIVE, MOVING)) {
            return false;
        }
        if (!PoolProtocol.move(control, slot, Proc.selfIdent(), owner)) {
            state = ACTIVE;
            return false;
        }
        STATE.setRelease(this, ENDED); // readers load it, acquiring; nothing here waits on it (no store-load order)
        onEnd();
        return true;
    }
}
