package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.kernel.ShapeLimits;
import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import dev.sharedarrays.DType;
import dev.sharedarrays.InvalidSegmentException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.List;
import java.util.zip.CRC32C;

import static dev.sharedarrays.internal.segment.SegmentDescriptor.*;

/**
 * Reads, writes and validates the control block and header of a segment (see
 * {@link SegmentDescriptor} for the bytes). Works on mapped memory and on heap copies alike.
 */
public final class ControlBlock {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle LONG_VH = LONG.varHandle();
    private static final VarHandle INT_VH = INT.varHandle();

    private ControlBlock() {
    }

    /**
     * Writes the first contents ({@code data} receives the data bytes and the control block, whose
     * words outside the fields below it may set: a pool's), then header and control fields, the
     * ready word last with release semantics: whoever sees the segment ready sees its data as
     * {@code data} left it.
     */
    public static void initialize(MemorySegment all, MemorySegment control, SegmentFacts facts, BiConsumer<MemorySegment, MemorySegment> data) {
        data.accept(all.asSlice(DATA_OFFSET, facts.dataLength()), control);
        initialize(all, control, facts);
    }

    /**
     * As {@link #initialize(MemorySegment, MemorySegment, SegmentFacts, BiConsumer)} where the
     * header page holds its final bytes already: a file create writes it first (by pwrite, the
     * sign sweep looks for), and writing it again through the mapping would only redo that.
     */
    public static void initializeAfterHeader(MemorySegment all, MemorySegment control, SegmentFacts facts,
            BiConsumer<MemorySegment, MemorySegment> data) {
        data.accept(all.asSlice(DATA_OFFSET, facts.dataLength()), control);
        initializeControl(control, facts);
    }

    /**
     * Writes header and control fields; the ready word last, with release semantics. The header
     * page goes in one copy of its final bytes, so that no one ever sees a part of it over other
     * bytes (a page that began with spaces once kept sweep from removing a killed file create's
     * temporary file, when file creates still came here).
     */
    public static void initialize(MemorySegment header, MemorySegment control, SegmentFacts facts) {
        MemorySegment.copy(MemorySegment.ofArray(npyHeader(facts.dtype().descr(), facts.shape())), 0, header, 0, DATA_OFFSET);
        initializeControl(control, facts);
    }

    /**
     * Writes the control fields only, the ready word last: for a process-local array, whose
     * header no one reads (there is no file to read it from).
     */
    public static void initializeControl(MemorySegment control, SegmentFacts facts) {
        control.set(LONG, MAGIC_OFFSET, MAGIC);
        control.set(INT, VERSION_OFFSET, VERSION);
        control.set(INT, DTYPE_OFFSET, facts.dtype().code());
        control.set(INT, NDIM_OFFSET, facts.shape().length);
        for (int i = 0; i < MAX_DIMS; i++) {
            control.set(LONG, SHAPE_OFFSET + 8L * i, i < facts.shape().length ? facts.shape()[i] : 0);
        }
        control.set(LONG, DATA_OFFSET_OFFSET, DATA_OFFSET);
        control.set(LONG, DATA_LENGTH_OFFSET, facts.dataLength());
        control.set(LONG, ID_OFFSET, facts.id());
        control.set(LONG, CREATOR_PID_OFFSET, facts.creatorPid());
        control.set(LONG, CREATOR_START_OFFSET, facts.creatorStart());
        control.set(LONG, CREATED_OFFSET, facts.createdMillis());
        control.set(LONG, FLAGS_OFFSET, facts.flags());
        control.set(INT, CRC_OFFSET, crc(control));
        INT_VH.setRelease(control, READY_OFFSET, READY);
    }

    static int crc(MemorySegment control) {
        byte[] covered = control.asSlice(0, CRC_COVERED).toArray(ValueLayout.JAVA_BYTE);
        Arrays.fill(covered, (int) READY_OFFSET, (int) READY_OFFSET + 4, (byte) 0);
        CRC32C c = new CRC32C();
        c.update(covered);
        return (int) c.getValue();
    }

    /**
     * Checks everything attach relies on and returns the segment's facts.
     *
     * @param header   the first 4096 bytes of the file
     * @param control  the last 4096 bytes of the file
     * @param fileSize the file's size
     * @param where    the path or handle, for messages
     * @throws InvalidSegmentException naming {@code where} and the first mismatch found
     */
    public static SegmentFacts validate(MemorySegment header, MemorySegment control, long fileSize, String where) {
        checkFileSize(fileSize, where);
        long magic = control.get(LONG, MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw invalid(where, "no shared-arrays control block at offset " + (fileSize - CONTROL_SIZE)
                    + " (magic 0x" + Long.toHexString(magic) + ", expected 0x" + Long.toHexString(MAGIC) + ")");
        }
        int version = control.get(INT, VERSION_OFFSET);
        if (version != VERSION) {
            throw invalid(where, "format version " + version + ", this library reads version " + VERSION);
        }
        int ready = (int) INT_VH.getAcquire(control, READY_OFFSET);
        if (ready != READY) {
            throw invalid(where, "segment is not ready (ready word 0x" + Integer.toHexString(ready)
                    + "): its creator has not finished or died while creating it");
        }
        int storedCrc = control.get(INT, CRC_OFFSET);
        int actualCrc = crc(control);
        if (storedCrc != actualCrc) {
            throw invalid(where, "control block checksum mismatch (stored 0x" + Integer.toHexString(storedCrc)
                    + ", computed 0x" + Integer.toHexString(actualCrc) + "): the control block was overwritten");
        }
        int code = control.get(INT, DTYPE_OFFSET);
        DType<?> dtype;
        try {
            dtype = DType.ofCode(code);
        } catch (IllegalArgumentException e) {
            throw invalid(where, e.getMessage());
        }
        int ndim = control.get(INT, NDIM_OFFSET);
        if (ndim < 1 || ndim > MAX_DIMS) {
            throw invalid(where, "ndim " + ndim + " is outside 1.." + MAX_DIMS);
        }
        long[] shape = new long[ndim];
        for (int i = 0; i < MAX_DIMS; i++) {
            long d = control.get(LONG, SHAPE_OFFSET + 8L * i);
            if (i < ndim) {
                if (d < 1) {
                    throw invalid(where, "shape[" + i + "] is " + d + ", must be >= 1");
                }
                shape[i] = d;
            } else if (d != 0) {
                throw invalid(where, "shape[" + i + "] is " + d + " beyond ndim " + ndim);
            }
        }
        long dataLength = ShapeLimits.dataLength(shape, dtype.itemSize());
        if (dataLength < 0) {
            throw invalid(where, "shape " + Arrays.toString(shape) + " of " + dtype + " overflows or exceeds 1 TiB");
        }
        long dataOffset = control.get(LONG, DATA_OFFSET_OFFSET);
        if (dataOffset != DATA_OFFSET) {
            throw invalid(where, "data offset " + dataOffset + ", expected " + DATA_OFFSET);
        }
        long storedLength = control.get(LONG, DATA_LENGTH_OFFSET);
        if (storedLength != dataLength) {
            throw invalid(where, "data length " + storedLength + " does not match shape " + Arrays.toString(shape)
                    + " of " + dtype + " (" + dataLength + " bytes)");
        }
        if (fileSize(dataLength) != fileSize) {
            throw invalid(where, "file is " + fileSize + " bytes, but shape " + Arrays.toString(shape) + " of " + dtype
                    + " needs " + fileSize(dataLength));
        }
        byte[] prefix = npyPrefix(dtype.descr(), shape);
        int end = (int) DATA_OFFSET;
        // copied out first: a copy of a shrunk file faults as an InternalError the caller turns into
        // SegmentTruncatedException, while the JDK's compare stub would crash the JVM
        byte[] page = header.byteSize() < end ? null : header.asSlice(0, end).toArray(ValueLayout.JAVA_BYTE);
        if (page == null
                || Arrays.mismatch(page, 0, prefix.length, prefix, 0, prefix.length) != -1
                || !isPadding(page, prefix.length)) {
            throw invalid(where, ".npy header does not match the control block (expected "
                    + dtype.descr() + " " + Arrays.toString(shape) + ")");
        }
        return new SegmentFacts(dtype, shape, dataLength, control.get(LONG, ID_OFFSET),
                control.get(LONG, CREATOR_PID_OFFSET), control.get(LONG, CREATOR_START_OFFSET),
                control.get(LONG, CREATED_OFFSET), control.get(LONG, FLAGS_OFFSET));
    }

    /**
     * The checks that must pass before the file's last page may be read.
     *
     * @throws InvalidSegmentException if the file is too small or not whole pages
     */
    public static void checkFileSize(long fileSize, String where) {
        long minSize = DATA_OFFSET + PAGE + CONTROL_SIZE;
        if (fileSize < minSize) {
            throw invalid(where, "file is " + fileSize + " bytes, smaller than the smallest segment (" + minSize + " bytes)");
        }
        if (fileSize % PAGE != 0) {
            throw invalid(where, "file size " + fileSize + " is not a multiple of " + PAGE);
        }
    }

    static InvalidSegmentException invalid(String where, String why) {
        return new InvalidSegmentException(where + " is not a valid shared-arrays segment: " + why);
    }

    /** A process recorded in an attach slot. */
    public record Slot(int index, long pid, long start) {
    }

    /**
     * Records this process in a free attach slot (or one of a dead process) and returns its index.
     *
     * @throws dev.sharedarrays.SharedArrayException if all slots belong to live processes
     */
    public static int registerAttach(MemorySegment control, String where) {
        long me = Proc.selfPid();
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < ATTACH_SLOTS; i++) {
                long off = ATTACH_SLOTS_OFFSET + (long) SLOT_SIZE * i;
                long pid = (long) LONG_VH.getAcquire(control, off);
                boolean free = pid == 0
                        || (pass == 1 && !Proc.isAlive(pid, (long) LONG_VH.getAcquire(control, off + 8)));
                if (free && MappedWords.cas(control, off, pid, me)) {
                    LONG_VH.setRelease(control, off + 8, Proc.selfStartTime());
                    return i;
                }
            }
        }
        throw new dev.sharedarrays.SharedArrayException("cannot attach " + where + ": all " + ATTACH_SLOTS
                + " attach slots are held by live processes; close some attachments first");
    }

    /** Clears slot index if it still holds this process. */
    public static void releaseAttach(MemorySegment control, int index) {
        long off = ATTACH_SLOTS_OFFSET + (long) SLOT_SIZE * index;
        if ((long) LONG_VH.getAcquire(control, off) == Proc.selfPid()) {
            LONG_VH.setRelease(control, off + 8, 0L);
            MappedWords.cas(control, off, Proc.selfPid(), 0L);
        }
    }

    /** The occupied attach slots. */
    public static List<Slot> attached(MemorySegment control) {
        List<Slot> out = new ArrayList<>();
        for (int i = 0; i < ATTACH_SLOTS; i++) {
            long off = ATTACH_SLOTS_OFFSET + (long) SLOT_SIZE * i;
            long pid = (long) LONG_VH.getAcquire(control, off);
            if (pid != 0) {
                out.add(new Slot(i, pid, (long) LONG_VH.getAcquire(control, off + 8)));
            }
        }
        return out;
    }
}
