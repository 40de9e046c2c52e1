package dev.sharedarrays.internal.sync;

/**
 * A pool's words in the control block of its segment (offsets from the control block; see
 * {@code SegmentDescriptor}, which takes these); the protocol is {@link PoolProtocol}'s.
 */
public final class PoolDescriptor {
    private static final int U32 = 4;
    private static final int U64 = 8;

    public static final int POOL_MAX_SLOTS = 256;
    /** Bytes 1860..1919, reserved, zero. */
    private static final int POOL_RESERVED = 60;
    public static final long POOL_MAGIC = 0x0100_4c4f_4f50_4153L; // "SAPOOL\0\1" little-endian

    /** Where the pool's words start: after the change words. */
    public static final long FIRST_OFFSET = 1840;
    public static final long POOL_MAGIC_OFFSET = FIRST_OFFSET;
    public static final long POOL_SLOTS_OFFSET = POOL_MAGIC_OFFSET + U64;
    public static final long POOL_SEQ_OFFSET = POOL_SLOTS_OFFSET + U32;
    public static final long POOL_WAITERS_OFFSET = POOL_SEQ_OFFSET + U32;
    public static final long POOL_OWNERS_OFFSET = POOL_WAITERS_OFFSET + U32 + POOL_RESERVED;
    /** The first byte after the owner words; the rest of the control block is reserved, zero. */
    public static final long END_OFFSET = POOL_OWNERS_OFFSET + (long) U64 * POOL_MAX_SLOTS;

    private PoolDescriptor() {
    }
}
