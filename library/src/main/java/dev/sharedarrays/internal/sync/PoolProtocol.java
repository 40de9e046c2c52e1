package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static dev.sharedarrays.internal.sync.PoolDescriptor.*;

/**
 * The slot ownership of an {@link dev.sharedarrays.ArrayPool}, in its control block's pool words
 * (see {@link PoolDescriptor}). Each slot has one owner
 * word, changed only by compare-and-set, so a slot has exactly one owner at a time:
 *
 * <pre>
 * 0                               free
 * a process ident (bit 63 clear)  acquired by that process ({@link Proc#ident})
 * IN_QUEUE | tag &lt;&lt; 32 | position  in flight: message {@code position} of the queue whose tag it is
 * </pre>
 * A slot owned by a process that died is free again at the next look ({@link #reclaimDead});
 * a slot in flight belongs to its queue, which hands it to the receiver or, if the message is
 * dropped, frees it. Frees bump the pool's futex word, on which acquirers sleep.
 */
public final class PoolProtocol {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT_VH = ValueLayout.JAVA_INT.varHandle();
    public static final long IN_QUEUE = Long.MIN_VALUE;
    private static final long TAG_MASK = (1L << 31) - 1;

    static {
        Backoff.link();
    }

    private PoolProtocol() {
    }

    /** Writes the pool words of a new pool into its zeroed control block; the magic last. */
    public static void initialize(MemorySegment control, int slots) {
        INT_VH.setVolatile(control, POOL_SLOTS_OFFSET, slots);
        LONG_VH.setVolatile(control, POOL_MAGIC_OFFSET, POOL_MAGIC);
    }

    /** The slot count of the pool whose control block this is, or -1 if it is no pool. */
    public static int slots(MemorySegment control) {
        if ((long) LONG_VH.getVolatile(control, POOL_MAGIC_OFFSET) != POOL_MAGIC) {
            return -1;
        }
        int n = (int) INT_VH.getVolatile(control, POOL_SLOTS_OFFSET);
        return n >= 1 && n <= POOL_MAX_SLOTS ? n : -1;
    }

    /** The owner word of an in-flight slot: message {@code position} of the queue of {@code tag}. */
    public static long inQueue(long tag, long position) {
        return IN_QUEUE | (tag & TAG_MASK) << 32 | (position & 0xFFFF_FFFFL);
    }

    public static long owner(MemorySegment control, int slot) {
        return (long) LONG_VH.getVolatile(control, ownerOffset(slot));
    }

    private static long ownerOffset(int slot) {
        return POOL_OWNERS_OFFSET + 8L * slot;
    }

    /** Changes a slot's owner from {@code from} to {@code to}; false if {@code from} does not own it. */
    public static boolean move(MemorySegment control, int slot, long from, long to) {
        if (!MappedWords.cas(control, ownerOffset(slot), from, to)) {
            return false;
        }
        if (to == 0) {
            Futex.bump(control, POOL_SEQ_OFFSET, POOL_WAITERS_OFFSET);
        }
        return true;
    }

    /** Frees a slot {@code owner} holds; false if it does not. */
    public static boolean release(MemorySegment control, int slot, long owner) {
        return move(control, slot, owner, 0L);
    }

    /** Takes a free slot for {@code ident}, looking from {@code start} on; its index, or -1 if none is free. */
    public static int tryAcquire(MemorySegment control, int slots, long ident, int start) {
        for (int k = 0; k < slots; k++) {
            int i = (int) Math.floorMod((long) start + k, (long) slots);
            long off = ownerOffset(i);
            if ((long) LONG_VH.getVolatile(control, off) == 0 && MappedWords.casLoaded(control, off, 0L, ident)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Takes a free slot, waiting at most timeoutNanos for one; frees slots of dead processes once
     * per sleep slice while none is free. Returns its index, or -1 if the time ran out.
     *
     * @throws java.util.concurrent.CancellationException if {@code cancelled} says so first
     */
    public static int acquire(MemorySegment control, int slots, long timeoutNanos, BooleanSupplier cancelled, int start) {
        long me = Proc.selfIdent();
        Wait wait = new Wait(timeoutNanos, cancelled);
        while (true) {
            int seen = Futex.read(control, POOL_SEQ_OFFSET);
            int i = tryAcquire(control, slots, me, start);
            if (i >= 0) {
                return i;
            }
            // once per slice, not at once: a full pool is the normal state of a fast producer, and
            // each look reads /proc for every owner (tens of µs)
            if (wait.livenessDue() && reclaimDead(control, slots) > 0) {
                continue;
            }
            if (wait.expired()) {
                return -1;
            }
            wait.pause(control, POOL_SEQ_OFFSET, POOL_WAITERS_OFFSET, seen);
        }
    }

    /** Frees the slots whose owning process is gone; how many. */
    public static int reclaimDead(MemorySegment control, int slots) {
        Map<Long, Boolean> alive = new HashMap<>();
        int freed = 0;
        for (int i = 0; i < slots; i++) {
            long o = owner(control, i);
            if (o != 0 && (o & IN_QUEUE) == 0 && !alive.computeIfAbsent(o, Proc::identAlive) && release(control, i, o)) {
                freed++;
            }
        }
        return freed;
    }

    /** How many slots are free now. */
    public static int free(MemorySegment control, int slots) {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            if (owner(control, i) == 0) {
                n++;
            }
        }
        return n;
    }

    /** How many slots are in flight in queues now. */
    public static int inFlight(MemorySegment control, int slots) {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            if ((owner(control, i) & IN_QUEUE) != 0) {
                n++;
            }
        }
        return n;
    }
}
