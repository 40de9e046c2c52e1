package dev.sharedarrays.internal.sync;

/**
 * The words of a {@link dev.sharedarrays.SharedBarrier}, which {@link BarrierProtocol} reads
 * and writes. A barrier is an ordinary I64 segment (so it has a handle, a lifecycle and a .npy
 * view like any array) whose data holds:
 *
 * <pre>
 * offset  field              type  meaning
 *   0     magic              u64   "SABARR\0\1": this I64 array is a barrier
 *   8     parties            u64   how many arrivals trip the barrier, 1..MAX_PARTIES
 *  16     generation         u32   futex word: +1 each time the barrier trips or breaks
 *  20     waiters            u32   processes sleeping on generation (0 skips FUTEX_WAKE)
 *  24     arrived            u64   arrivals in the current generation
 *  32     broken reason      u64   0 intact, else a BarrierBrokenException.Reason ordinal + 1
 *  40     broken by          u64   ident of the process that broke it (the dead or timed-out one)
 *  48     broken generation  u64   the generation that was broken
 *  56     (reserved)         u64
 *  64     party slots        parties x {ident u64, reserved u64}: registered parties, 0 if free,
 *                                  bit 63 set once the party has closed the barrier
 * </pre>
 * The data is {@code 64 + 16 * parties} bytes: shape {@code [8 + 2 * parties]} of I64.
 */
public final class BarrierDescriptor {
    public static final long MAGIC = 0x0100_5252_4142_4153L; // "SABARR\0\1" little-endian
    public static final int MAX_PARTIES = 4096;
    public static final int SLOT_SIZE = 16;
    // Each offset is the one before it plus that field's size, so the table cannot contradict
    // itself; DescriptorLayoutTest checks that no two fields overlap.
    private static final int U32 = 4;
    private static final int U64 = 8;
    /** Bytes 56..63, reserved, zero. */
    private static final int RESERVED = 8;

    public static final long MAGIC_OFFSET = 0;
    public static final long PARTIES_OFFSET = MAGIC_OFFSET + U64;
    public static final long GENERATION_OFFSET = PARTIES_OFFSET + U64;
    public static final long WAITERS_OFFSET = GENERATION_OFFSET + U32;
    public static final long ARRIVED_OFFSET = WAITERS_OFFSET + U32;
    public static final long BROKEN_REASON_OFFSET = ARRIVED_OFFSET + U64;
    public static final long BROKEN_BY_OFFSET = BROKEN_REASON_OFFSET + U64;
    public static final long BROKEN_GENERATION_OFFSET = BROKEN_BY_OFFSET + U64;
    public static final long SLOTS_OFFSET = BROKEN_GENERATION_OFFSET + U64 + RESERVED;
    /** Set in a party slot whose instance closed the barrier (idents use bits 0-62, never bit 63). */
    public static final long LEFT = Long.MIN_VALUE;

    private BarrierDescriptor() {
    }

    /** Elements of the I64 array that holds a barrier of this many parties. */
    public static long words(int parties) {
        return (SLOTS_OFFSET + (long) SLOT_SIZE * parties) / 8;
    }

    /** Offset of party slot {@code i}'s ident word. */
    public static long slotOffset(int i) {
        return SLOTS_OFFSET + (long) SLOT_SIZE * i;
    }
}
