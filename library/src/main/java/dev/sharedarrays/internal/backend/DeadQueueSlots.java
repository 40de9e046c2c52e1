package dev.sharedarrays.internal.backend;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.Sweeper;
import dev.sharedarrays.internal.sync.PoolProtocol;
import dev.sharedarrays.internal.sync.QueueMessage;
import dev.sharedarrays.internal.sync.QueueProtocol;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives back the pool slots in flight in a queue that a sweep or rm removes while no process has
 * it open: no one can ever receive those messages, and without this their slots would stay
 * "in flight" for the pool's whole life.
 *
 * <p>For each pool-slot message still in the queue it attaches the pool the cell names (checking
 * the pool's id) and frees the slot only if its owner word is still exactly "in flight at this
 * position of this queue" (compare-and-set): a slot already freed, or taken since by another
 * process or queue, is left alone, so nothing is freed twice or taken from its owner. A pool
 * that cannot be attached (gone, not ours, not a pool) is skipped: its slots went with it, or are
 * not ours to free. Thread-safe (no state).
 */
final class DeadQueueSlots implements Sweeper.BeforeRemove {
    static final DeadQueueSlots INSTANCE = new DeadQueueSlots();
    /** What a removal spends on giving slots back, at most: the rest stay in flight until their pools go. */
    private static final long TIME_BUDGET_NANOS = 1_000_000_000L;

    private DeadQueueSlots() {
    }

    @Override
    public boolean wants(SegmentInfo info) {
        return info.kind() == SegmentInfo.Kind.QUEUE;
    }

    @Override
    public void accept(SegmentInfo info, MemorySegment data) {
        int capacity = QueueProtocol.capacity(data, data.byteSize() / 8);
        if (capacity < 0) {
            return;
        }
        QueueProtocol queue = new QueueProtocol(data, capacity, String.valueOf(info.path()));
        Map<Long, Segment> pools = new HashMap<>();
        // a second for all (an attach may wait for a lock), and each pool (by id) attached or tried once
        long deadline = System.nanoTime() + TIME_BUDGET_NANOS;
        try {
            for (QueueMessage m : queue.pendingOfUnusedQueue()) {
                if (System.nanoTime() - deadline > 0) {
                    return;
                }
                if (m.kind() == QueueMessage.Kind.POOL_SLOT) {
                    free(m, queue.inFlightOwner(m), pools);
                }
            }
        } finally {
            for (Segment pool : pools.values()) {
                if (pool != null) {
                    pool.close();
                }
            }
        }
    }

    private static void free(QueueMessage m, long inFlight, Map<Long, Segment> pools) {
        if (!pools.containsKey(m.id())) {
            pools.put(m.id(), attachPool(m.handle())); // null too: one that cannot be attached is not tried again
        }
        Segment pool = pools.get(m.id());
        if (pool == null || pool.facts().id() != m.id()) {
            return;
        }
        int slots = PoolProtocol.slots(pool.control());
        if (slots > 0 && pool.facts().shape()[0] == slots && m.index() >= 0 && m.index() < slots) {
            PoolProtocol.release(pool.control(), (int) m.index(), inFlight);
        }
    }

    /** The pool a message names, attached; null if it cannot be (gone, not ours, not a handle). */
    private static Segment attachPool(String handle) {
        try {
            return Backends.attach(ArrayHandle.parse(handle));
        } catch (RuntimeException e) {
            return null;
        }
    }
}
