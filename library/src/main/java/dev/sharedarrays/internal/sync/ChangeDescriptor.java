package dev.sharedarrays.internal.sync;

/**
 * The change signal's words in a segment's control block (offsets from the control block; see
 * {@code SegmentDescriptor}, which takes these); the protocol is {@link ChangeSignal}'s.
 */
public final class ChangeDescriptor {
    private static final int U32 = 4;
    private static final int U64 = 8;

    /** Where the change words start: after the lock's words and the attach slots. */
    public static final long FIRST_OFFSET = 1824;
    /** +1 per signalChange; its low 32 bits are a futex word. */
    public static final long CHANGE_COUNT_OFFSET = FIRST_OFFSET;
    public static final long CHANGE_WAITERS_OFFSET = CHANGE_COUNT_OFFSET + U64;
    /** The first byte after the change words (the waiters' u32 and a reserved u32). */
    public static final long END_OFFSET = CHANGE_WAITERS_OFFSET + U32 + U32;

    private ChangeDescriptor() {
    }
}
