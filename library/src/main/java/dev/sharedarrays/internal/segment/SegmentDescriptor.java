package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.kernel.ShapeLimits;
import dev.sharedarrays.internal.sync.ChangeDescriptor;
import dev.sharedarrays.internal.sync.LockDescriptor;
import dev.sharedarrays.internal.sync.PoolDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The one description of a segment's bytes. A segment is a valid .npy v1.0 file (its header
 * as {@link NpyHeader} describes, padded to 4096) with a control block after the data:
 *
 * <pre>
 * 0            "\x93NUMPY" 01 00, uint16 HEADER_LEN (= 4086), then the dict
 *              {'descr': '&lt;f8', 'fortran_order': False, 'shape': (2, 3), }
 *              padded with spaces to end in '\n' at byte 4095
 *              (a create writes this page first, before it reserves the rest: see isHeaderPage)
 * 4096         DATA: product(shape) * itemSize bytes, row-major, little-endian
 * C            CONTROL (4096 bytes) at C = roundUp(4096 + dataLength, 4096) = fileSize - 4096
 *
 * CONTROL, offsets from C                          written
 *   0  magic          u64  "SHARARR\0" (LE)        at create
 *   8  version        u32  1                       at create
 *  12  ready          u32  0x52454459 ("YDER")     last, release store
 *  16  dtype code     u32  DType.code()            at create
 *  20  ndim           u32  1..8                    at create
 *  24  shape[8]       u64  unused entries 0        at create
 *  88  data offset    u64  4096                    at create
 *  96  data length    u64                          at create
 * 104  array id       u64  random                  at create
 * 112  creator pid    u64                          at create
 * 120  creator start  u64  /proc/pid/stat field 22 at create
 * 128  created        u64  epoch milliseconds      at create
 * 136  flags          u64  bit 0 persistent, bit 1 shared (lifetime), bits 8-15 backend ordinal
 * 144  crc32c         u32  of bytes 0..143, ready read as 0
 * 148  (reserved)     u32
 * 152  op counter     u64                          mutable
 * 160  writer         u64  ident of the process holding the write lock, 0 if none
 * 168  writer seq     u32  futex word: +1 each time the writer word is cleared
 * 172  reader seq     u32  futex word: +1 each time a reader leaves
 * 176  writer waiters u32  processes sleeping on writer seq (a hint: 0 skips FUTEX_WAKE)
 * 180  reader waiters u32  processes sleeping on reader seq
 * 184  recoveries     u64  holds taken back from dead processes
 * 192  last dead      u64  ident of the last dead holder recovered
 * 200..287 reserved for the lock, zero
 * 288  reader slots   32 x {ident u64, reserved u64}: processes holding the read lock
 * 800  attach slots   64 x {pid u64, start u64}    mutable
 * 1824 change count   u64  +1 per signalChange; its low 32 bits are a futex word
 * 1832 change waiters u32  processes sleeping on the change count
 * 1836 (reserved)     u32
 * 1840 pool magic     u64  "SAPOOL\0\1" if the segment is an ArrayPool, else 0   at create
 * 1848 pool slots     u32  1..256                  at create
 * 1852 pool seq       u32  futex word: +1 each time a slot is freed
 * 1856 pool waiters   u32  processes sleeping on the pool seq
 * 1860..1919 reserved, zero
 * 1920 slot owners    256 x u64: 0 free, else its owner (see PoolProtocol)
 * 3968..4095 reserved, zero
 * </pre>
 * An ident is a process as one word: pid in bits 0-23, low 39 bits of its start time above
 * ({@link Proc#ident}), so a reused pid never passes for a dead holder.
 * numpy reads only the header and the data, so the control block is invisible to it.
 */
public final class SegmentDescriptor {
    public static final int PAGE = 4096;
    public static final long DATA_OFFSET = PAGE;
    public static final int CONTROL_SIZE = PAGE;
    /** 1 TiB: the largest data an array may have. */
    public static final long MAX_DATA_BYTES = ShapeLimits.MAX_DATA_BYTES;
    public static final int MAX_DIMS = ShapeLimits.MAX_DIMS;

    public static final long MAGIC = 0x00525241_52414853L; // "SHARARR\0" little-endian
    public static final int VERSION = 1;
    public static final int READY = 0x52454459;

    // Each offset is the one before it plus that field's size, so the table cannot contradict
    // itself (constant expressions, not a static block, so they stay compile-time constants).
    // The words of the lock, the change signal and the pool are the descriptors' of internal.sync,
    // whose protocols they are; the names here are the protocol's (docs/PROTOCOL.md, Python).
    // DescriptorLayoutTest checks that no two fields overlap, the parts abut and all fit in CONTROL_SIZE.
    public static final int READER_SLOTS = LockDescriptor.READER_SLOTS;
    public static final int ATTACH_SLOTS = 64;
    public static final int SLOT_SIZE = LockDescriptor.SLOT_SIZE;
    public static final int POOL_MAX_SLOTS = PoolDescriptor.POOL_MAX_SLOTS;
    private static final int U32 = 4;
    private static final int U64 = 8;

    public static final long MAGIC_OFFSET = 0;
    public static final long VERSION_OFFSET = MAGIC_OFFSET + U64;
    public static final long READY_OFFSET = VERSION_OFFSET + U32;
    public static final long DTYPE_OFFSET = READY_OFFSET + U32;
    public static final long NDIM_OFFSET = DTYPE_OFFSET + U32;
    public static final long SHAPE_OFFSET = NDIM_OFFSET + U32;
    public static final long DATA_OFFSET_OFFSET = SHAPE_OFFSET + (long) U64 * MAX_DIMS;
    public static final long DATA_LENGTH_OFFSET = DATA_OFFSET_OFFSET + U64;
    public static final long ID_OFFSET = DATA_LENGTH_OFFSET + U64;
    public static final long CREATOR_PID_OFFSET = ID_OFFSET + U64;
    public static final long CREATOR_START_OFFSET = CREATOR_PID_OFFSET + U64;
    public static final long CREATED_OFFSET = CREATOR_START_OFFSET + U64;
    public static final long FLAGS_OFFSET = CREATED_OFFSET + U64;
    public static final long CRC_OFFSET = FLAGS_OFFSET + U64;
    /** The crc covers every byte before it. */
    public static final int CRC_COVERED = (int) CRC_OFFSET;
    // the crc's u32 is followed by a reserved u32 that keeps the op counter 8-aligned
    public static final long OP_COUNTER_OFFSET = CRC_OFFSET + U32 + U32;
    // the lock's words follow the op counter (LockDescriptor.FIRST_OFFSET)
    public static final long WRITER_OFFSET = LockDescriptor.WRITER_OFFSET;
    public static final long WRITER_SEQ_OFFSET = LockDescriptor.WRITER_SEQ_OFFSET;
    public static final long READER_SEQ_OFFSET = LockDescriptor.READER_SEQ_OFFSET;
    public static final long WRITER_WAITERS_OFFSET = LockDescriptor.WRITER_WAITERS_OFFSET;
    public static final long READER_WAITERS_OFFSET = LockDescriptor.READER_WAITERS_OFFSET;
    public static final long RECOVERIES_OFFSET = LockDescriptor.RECOVERIES_OFFSET;
    public static final long LAST_DEAD_OFFSET = LockDescriptor.LAST_DEAD_OFFSET;
    public static final long READER_SLOTS_OFFSET = LockDescriptor.READER_SLOTS_OFFSET;
    public static final long ATTACH_SLOTS_OFFSET = LockDescriptor.END_OFFSET;
    /** The first byte after the attach slots, where the change words start. */
    static final long ATTACH_SLOTS_END = ATTACH_SLOTS_OFFSET + (long) SLOT_SIZE * ATTACH_SLOTS;
    public static final long CHANGE_COUNT_OFFSET = ChangeDescriptor.CHANGE_COUNT_OFFSET;
    public static final long CHANGE_WAITERS_OFFSET = ChangeDescriptor.CHANGE_WAITERS_OFFSET;
    public static final long POOL_MAGIC_OFFSET = PoolDescriptor.POOL_MAGIC_OFFSET;
    public static final long POOL_SLOTS_OFFSET = PoolDescriptor.POOL_SLOTS_OFFSET;
    public static final long POOL_SEQ_OFFSET = PoolDescriptor.POOL_SEQ_OFFSET;
    public static final long POOL_WAITERS_OFFSET = PoolDescriptor.POOL_WAITERS_OFFSET;
    public static final long POOL_OWNERS_OFFSET = PoolDescriptor.POOL_OWNERS_OFFSET;
    // bytes POOL_OWNERS_OFFSET + 8 * POOL_MAX_SLOTS (3968) .. CONTROL_SIZE are reserved, zero
    public static final long POOL_MAGIC = PoolDescriptor.POOL_MAGIC;

    /** Lifetime PERSISTENT; neither this nor {@link #FLAG_SHARED} means OWNER. */
    public static final long FLAG_PERSISTENT = 1;
    /** Lifetime SHARED: the last process to close removes it. */
    public static final long FLAG_SHARED = 2;

    private static final byte[] NPY_MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private SegmentDescriptor() {
    }

    /** Offset of the control block, also the length of header plus padded data. */
    public static long controlOffset(long dataLength) {
        return roundUp(DATA_OFFSET + dataLength);
    }

    /** Total file size for this much data. */
    public static long fileSize(long dataLength) {
        return controlOffset(dataLength) + CONTROL_SIZE;
    }

    static long roundUp(long n) {
        return (n + PAGE - 1) & -PAGE;
    }

    /** Bytes every segment starts with: magic, version 1.0 and HEADER_LEN 4086. */
    public static final int MARK_LENGTH = 10;

    /**
     * True if {@code first} (at least {@link #MARK_LENGTH} bytes) starts as every segment starts.
     * A .npy file numpy wrote may start so too (it pads a long header to a multiple of 64, which
     * can be 4096): {@link #isHeaderPage} is the exact test.
     */
    public static boolean hasSegmentMark(byte[] first) {
        int headerLen = (int) DATA_OFFSET - 10;
        return first.length >= MARK_LENGTH && java.util.Arrays.equals(first, 0, NPY_MAGIC.length, NPY_MAGIC, 0, NPY_MAGIC.length)
                && first[8] == (byte) headerLen && first[9] == (byte) (headerLen >>> 8);
    }

    /** The dict of a header page: descr and the shape's text, to be written again and compared. */
    private static final java.util.regex.Pattern HEADER_DICT =
            java.util.regex.Pattern.compile("\\{'descr': '([<|][a-z][0-9])', 'fortran_order': False, 'shape': \\(([0-9, ]{1,200})\\), \\}");

    /**
     * True if {@code page} (a file's first {@link #DATA_OFFSET} bytes) is exactly a header page a
     * create writes: the mark, the dict of one element type and a shape of 1 to 8 dimensions as
     * {@link #npyDict} writes it, spaces, and '\n' at its last byte. The mark alone is not enough:
     * numpy pads a long header (a structured dtype's) to 4096 bytes too.
     */
    public static boolean isHeaderPage(byte[] page) {
        if (page.length != DATA_OFFSET || !hasSegmentMark(page)) {
            return false;
        }
        java.util.regex.Matcher m = HEADER_DICT.matcher(new String(page, MARK_LENGTH, page.length - MARK_LENGTH,
                StandardCharsets.ISO_8859_1));
        if (!m.lookingAt()) {
            return false;
        }
        String descr = m.group(1);
        if (java.util.Arrays.stream(dev.sharedarrays.internal.kernel.ElementType.values()).noneMatch(t -> t.descr().equals(descr))) {
            return false;
        }
        String[] dims = m.group(2).split(",", -1);
        int ndim = dims[dims.length - 1].isEmpty() ? dims.length - 1 : dims.length; // "(5,)" is 1-d
        if (ndim < 1 || ndim > MAX_DIMS) {
            return false;
        }
        long[] shape = new long[ndim];
        try {
            for (int i = 0; i < ndim; i++) {
                shape[i] = Long.parseLong(dims[i].strip());
                if (shape[i] < 1) {
                    return false;
                }
            }
        } catch (NumberFormatException e) {
            return false;
        }
        // written again and compared: "05", a missing space or other padding is not ours
        return java.util.Arrays.equals(page, npyHeader(descr, shape));
    }

    /** The .npy header's dict for a C-ordered array, as numpy writes it. */
    public static String npyDict(String descr, long[] shape) {
        StringBuilder d = new StringBuilder("{'descr': '").append(descr).append("', 'fortran_order': False, 'shape': (");
        for (int i = 0; i < shape.length; i++) {
            d.append(i > 0 ? ", " : "").append(shape[i]);
        }
        return d.append(shape.length == 1 ? ",), }" : "), }").toString();
    }

    /** Bytes 0 .. n of the header: magic, version, HEADER_LEN and the dict; spaces follow. */
    public static byte[] npyPrefix(String descr, long[] shape) {
        byte[] text = npyDict(descr, shape).getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[10 + text.length];
        System.arraycopy(NPY_MAGIC, 0, out, 0, NPY_MAGIC.length);
        int headerLen = (int) DATA_OFFSET - 10;
        out[8] = (byte) headerLen;
        out[9] = (byte) (headerLen >>> 8);
        System.arraycopy(text, 0, out, 10, text.length);
        return out;
    }

    /** What follows the prefix: spaces up to the '\n' that ends the header at byte 4095. */
    private static final MemorySegment PADDING;

    static {
        // the data is .npy '<' (little-endian) and is read and written in native order
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("shared-arrays needs a little-endian machine (.npy '<' data)");
        }
        byte[] pad = new byte[(int) DATA_OFFSET];
        java.util.Arrays.fill(pad, (byte) ' ');
        pad[pad.length - 1] = '\n';
        PADDING = MemorySegment.ofArray(pad).asReadOnly();
    }

    /** True if header[from..4096) is the padding: spaces, then the '\n' at byte 4095. */
    public static boolean isPadding(byte[] header, int from) {
        int end = (int) DATA_OFFSET - 1;
        for (int i = from; i < end; i++) {
            if (header[i] != ' ') {
                return false;
            }
        }
        return header[end] == '\n';
    }

    /** The exact 4096 bytes of .npy header this segment starts with. */
    public static byte[] npyHeader(String descr, long[] shape) {
        byte[] out = PADDING.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        byte[] prefix = npyPrefix(descr, shape);
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        return out;
    }
}
