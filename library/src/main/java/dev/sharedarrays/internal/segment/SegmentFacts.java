package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.kernel.ShapeLimits;
import dev.sharedarrays.internal.os.Proc;

import dev.sharedarrays.Backend;
import dev.sharedarrays.DType;
import dev.sharedarrays.Lifetime;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * The immutable facts of a segment: what {@link ControlBlock#initialize} writes into the control
 * block at creation and {@link ControlBlock#validate} reads back at attach.
 */
public record SegmentFacts(DType<?> dtype, long[] shape, long dataLength, long id,
                           long creatorPid, long creatorStart, long createdMillis, long flags) {
    private static final RandomGenerator RANDOM = new SecureRandom();

    /**
     * The facts of a segment this process is about to create: a random id, this process as the
     * creator, now as the creation time.
     *
     * @throws IllegalArgumentException if {@code shape.length < 1 || shape.length > 8}, a dimension
     *         is below 1, or the data would exceed 1 TiB
     */
    public static SegmentFacts forNew(DType<?> dtype, long[] shape, Lifetime lifetime, Backend backend) {
        return created(dtype, shape, RANDOM.nextLong(), lifetime, backend);
    }

    /**
     * The facts of a process-local array: as {@link #forNew} for an OWNER anonymous segment, with
     * an id that need only differ from this process's others (no other process ever sees it), so
     * it is drawn from ThreadLocalRandom: 2-3 ns against SecureRandom's ~200 ns, for every result.
     */
    public static SegmentFacts forLocal(DType<?> dtype, long[] shape) {
        return created(dtype, shape, java.util.concurrent.ThreadLocalRandom.current().nextLong(), Lifetime.OWNER, Backend.ANONYMOUS);
    }

    /** The facts of a segment this process creates now, with the id given. */
    private static SegmentFacts created(DType<?> dtype, long[] shape, long id, Lifetime lifetime, Backend backend) {
        long[] checked = checkShape(shape, dtype);
        return new SegmentFacts(dtype, checked, ShapeLimits.dataLength(checked, dtype.itemSize()), id,
                Proc.selfPid(), Proc.selfStartTime(), System.currentTimeMillis(), flags(lifetime, backend));
    }

    /** {@link #forNew(DType, long[], Lifetime, Backend)} with PERSISTENT or OWNER. */
    public static SegmentFacts forNew(DType<?> dtype, long[] shape, boolean persistent, Backend backend) {
        return forNew(dtype, shape, persistent ? Lifetime.PERSISTENT : Lifetime.OWNER, backend);
    }

    static long[] checkShape(long[] shape, DType<?> dtype) {
        if (shape.length < 1 || shape.length > SegmentDescriptor.MAX_DIMS) {
            throw new IllegalArgumentException("an array has 1 to " + SegmentDescriptor.MAX_DIMS + " dimensions, but shape "
                    + Arrays.toString(shape) + " has " + shape.length);
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 1) {
                throw new IllegalArgumentException("shape[" + i + "] is " + shape[i] + ", every dimension must be >= 1");
            }
        }
        if (ShapeLimits.dataLength(shape, dtype.itemSize()) < 0) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " of " + dtype + " needs more than "
                    + "the limit of 1 TiB (" + SegmentDescriptor.MAX_DATA_BYTES + " bytes) or overflows a long");
        }
        return shape.clone();
    }

    public boolean persistent() {
        return lifetime() == Lifetime.PERSISTENT;
    }

    /** Who removes the segment: from the flags word (persistent wins should both bits be set). */
    public Lifetime lifetime() {
        if ((flags & SegmentDescriptor.FLAG_PERSISTENT) != 0) {
            return Lifetime.PERSISTENT;
        }
        return (flags & SegmentDescriptor.FLAG_SHARED) != 0 ? Lifetime.SHARED : Lifetime.OWNER;
    }

    /** The backend that created the segment. */
    public Backend backend() {
        int ordinal = (int) ((flags >>> 8) & 0xff);
        Backend[] all = Backend.values();
        return ordinal < all.length ? all[ordinal] : Backend.SHM;
    }

    public long fileSize() {
        return SegmentDescriptor.fileSize(dataLength);
    }

    public long elementCount() {
        return dataLength / dtype.itemSize();
    }

    /** The flags word: bit 0 persistent, bit 1 shared, bits 8-15 the backend's ordinal. */
    public static long flags(Lifetime lifetime, Backend backend) {
        long l = switch (lifetime) {
            case OWNER -> 0;
            case SHARED -> SegmentDescriptor.FLAG_SHARED;
            case PERSISTENT -> SegmentDescriptor.FLAG_PERSISTENT;
        };
        return l | ((long) backend.ordinal() << 8);
    }

    /** {@link #flags(Lifetime, Backend)} with PERSISTENT or OWNER. */
    public static long flags(boolean persistent, Backend backend) {
        return flags(persistent ? Lifetime.PERSISTENT : Lifetime.OWNER, backend);
    }
}
