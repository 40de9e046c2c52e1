package dev.sharedarrays.internal.sync;

/**
 * The array lock's words in a segment's control block (offsets from the control block; the
 * diagram and the words around them: {@code SegmentDescriptor}, which takes these). The lock
 * protocol is {@link ArrayLock}'s. Each offset is the one before it plus that field's size;
 * DescriptorLayoutTest checks that the parts of the control block abut.
 */
public final class LockDescriptor {
    private static final int U32 = 4;
    private static final int U64 = 8;

    public static final int READER_SLOTS = 32;
    public static final int SLOT_SIZE = 16;
    /** Bytes 200..287, reserved for the lock, zero. */
    private static final int LOCK_RESERVED = 88;

    /** Where the lock's words start: after the header fields, the crc and the op counter. */
    public static final long FIRST_OFFSET = 160;
    public static final long WRITER_OFFSET = FIRST_OFFSET;
    public static final long WRITER_SEQ_OFFSET = WRITER_OFFSET + U64;
    public static final long READER_SEQ_OFFSET = WRITER_SEQ_OFFSET + U32;
    public static final long WRITER_WAITERS_OFFSET = READER_SEQ_OFFSET + U32;
    public static final long READER_WAITERS_OFFSET = WRITER_WAITERS_OFFSET + U32;
    public static final long RECOVERIES_OFFSET = READER_WAITERS_OFFSET + U32;
    public static final long LAST_DEAD_OFFSET = RECOVERIES_OFFSET + U64;
    public static final long READER_SLOTS_OFFSET = LAST_DEAD_OFFSET + U64 + LOCK_RESERVED;
    /** The first byte after the lock's words. */
    public static final long END_OFFSET = READER_SLOTS_OFFSET + (long) SLOT_SIZE * READER_SLOTS;

    private LockDescriptor() {
    }
}
