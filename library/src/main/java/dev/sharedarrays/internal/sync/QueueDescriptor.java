package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.kernel.ShapeLimits;

/**
 * The words of an {@link dev.sharedarrays.ArrayQueue}, which {@link QueueProtocol} reads and
 * writes. A queue is an ordinary I64 segment (handle, lifecycle, .npy view like any array)
 * whose data holds:
 *
 * <pre>
 * offset  field          type  meaning
 *    0    magic          u64   "SAQUEUE\1": this I64 array is a queue
 *    8    capacity       u64   cells, 1..MAX_CAPACITY
 *   16    mutex          16 B  {@link ProcessMutex}: held by the process in a send or receive
 *   32    head           u64   position of the next message to receive
 *   40    tail           u64   position after the last message sent
 *   48    put seq        u32   futex word: +1 per message sent and at end; receivers sleep on it
 *   52    put waiters    u32
 *   56    take seq       u32   futex word: +1 per message taken; senders sleep on it
 *   60    take waiters   u32
 *   64    ended          u64   0 while open, else the ident of the process that ended it
 *   72    tag            u64   names the queue in the owner word of a pool slot in flight
 *   80    dropped        u64   messages dropped because their sender or receiver died mid-way
 *   88    (reserved)     to 128
 *  128    producers      64 x u64: idents of registered producers, bit 63 once they closed
 *  640    consumers      64 x u64: the same for consumers
 * 1152    cells          capacity x 512 B; message p is in cell p % capacity:
 *            +0 position u64 (written last; -1 before the first message)
 *            +8 kind u32 (1 pool slot, 2 array view)   +12 ndim u32
 *           +16 array id u64 (of the pool or the array)
 *           +24 slot index, or the view's offset in elements, u64
 *           +32 dtype code u32   +36 handle length u32
 *           +40 shape[8] u64     +104 strides[8] i64 (elements)
 *          +168 sender ident u64  +176 (reserved)
 *          +192 the handle of the pool or array, UTF-8, up to 320 bytes
 * </pre>
 * The data is {@code 1152 + 512 * capacity} bytes.
 */
public final class QueueDescriptor {
    public static final long MAGIC = 0x0145_5545_5551_4153L; // "SAQUEUE\1" little-endian
    public static final int MAX_CAPACITY = 65536;
    public static final int MAX_PEERS = 64;
    public static final int CELL_SIZE = 512;
    // Each offset is the one before it plus that field's size, so the table cannot contradict
    // itself; DescriptorLayoutTest checks that no two fields overlap.
    private static final int U32 = 4;
    private static final int U64 = 8;
    /** Bytes 88..127 of the header, reserved, zero. */
    private static final int HEADER_RESERVED = 40;
    /** Bytes 176..191 of a cell, reserved, zero. */
    private static final int CELL_RESERVED = 16;

    public static final long MAGIC_OFFSET = 0;
    public static final long CAPACITY_OFFSET = MAGIC_OFFSET + U64;
    public static final long MUTEX_OFFSET = CAPACITY_OFFSET + U64;
    public static final long HEAD_OFFSET = MUTEX_OFFSET + ProcessMutex.SIZE;
    public static final long TAIL_OFFSET = HEAD_OFFSET + U64;
    public static final long PUT_SEQ_OFFSET = TAIL_OFFSET + U64;
    public static final long PUT_WAITERS_OFFSET = PUT_SEQ_OFFSET + U32;
    public static final long TAKE_SEQ_OFFSET = PUT_WAITERS_OFFSET + U32;
    public static final long TAKE_WAITERS_OFFSET = TAKE_SEQ_OFFSET + U32;
    public static final long ENDED_OFFSET = TAKE_WAITERS_OFFSET + U32;
    public static final long TAG_OFFSET = ENDED_OFFSET + U64;
    public static final long DROPPED_OFFSET = TAG_OFFSET + U64;
    public static final long PRODUCERS_OFFSET = DROPPED_OFFSET + U64 + HEADER_RESERVED;
    public static final long CONSUMERS_OFFSET = PRODUCERS_OFFSET + (long) U64 * MAX_PEERS;
    public static final long CELLS_OFFSET = CONSUMERS_OFFSET + (long) U64 * MAX_PEERS;

    public static final long CELL_POSITION = 0;
    public static final long CELL_KIND = CELL_POSITION + U64;
    public static final long CELL_NDIM = CELL_KIND + U32;
    public static final long CELL_ID = CELL_NDIM + U32;
    public static final long CELL_INDEX = CELL_ID + U64;
    public static final long CELL_DTYPE = CELL_INDEX + U64;
    public static final long CELL_HANDLE_LENGTH = CELL_DTYPE + U32;
    public static final long CELL_SHAPE = CELL_HANDLE_LENGTH + U32;
    public static final long CELL_STRIDES = CELL_SHAPE + (long) U64 * ShapeLimits.MAX_DIMS;
    public static final long CELL_SENDER = CELL_STRIDES + (long) U64 * ShapeLimits.MAX_DIMS;
    public static final long CELL_HANDLE = CELL_SENDER + U64 + CELL_RESERVED;
    public static final int MAX_HANDLE_BYTES = CELL_SIZE - (int) CELL_HANDLE;

    /** Set in a producer or consumer word once that instance closed the queue. */
    public static final long LEFT = Long.MIN_VALUE;

    private QueueDescriptor() {
    }

    /** Elements of the I64 array that holds a queue of this capacity. */
    public static long words(int capacity) {
        return (CELLS_OFFSET + (long) CELL_SIZE * capacity) / 8;
    }

    public static long cellOffset(long position, int capacity) {
        return CELLS_OFFSET + (long) CELL_SIZE * Math.floorMod(position, capacity);
    }
}
