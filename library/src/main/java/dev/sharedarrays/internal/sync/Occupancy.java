package dev.sharedarrays.internal.sync;

import dev.sharedarrays.DType;
import dev.sharedarrays.I64;
import dev.sharedarrays.SegmentInfo;

import java.lang.foreign.MemorySegment;

/**
 * What a segment holds (an array, or the words of a pool, queue or barrier) and how full it is,
 * for {@code ls} and {@code inspect}: read from its control block and the first bytes of its data.
 */
public final class Occupancy {
    /** Bytes of data that tell a queue or a barrier (its magic, size and counters). */
    public static final int HEAD_BYTES = 128;

    private Occupancy() {
    }

    /**
     * @param head the first {@code min(HEAD_BYTES, data length)} bytes of the data
     * @return {kind ordinal, used, capacity}; used and capacity are -1 for plain arrays
     */
    public static long[] of(DType<?> dtype, long[] shape, MemorySegment head, MemorySegment control) {
        int slots = PoolProtocol.slots(control);
        if (slots > 0 && shape.length >= 2 && shape[0] == slots) {
            return row(SegmentInfo.Kind.POOL, slots - PoolProtocol.free(control, slots), slots);
        }
        if (dtype == I64.TYPE && shape.length == 1 && head.byteSize() >= 64) { // a queue is longer than HEAD_BYTES, a barrier at least 80 bytes
            int capacity = QueueProtocol.capacity(head, shape[0]);
            if (capacity > 0) {
                return row(SegmentInfo.Kind.QUEUE, QueueProtocol.size(head), capacity);
            }
            int parties = BarrierProtocol.parties(head, shape[0]);
            if (parties > 0) {
                return row(SegmentInfo.Kind.BARRIER, BarrierProtocol.waiting(head), parties);
            }
        }
        return row(SegmentInfo.Kind.ARRAY, -1, -1);
    }

    private static long[] row(SegmentInfo.Kind kind, long used, long capacity) {
        return new long[] {kind.ordinal(), used, capacity};
    }
}
