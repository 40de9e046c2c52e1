package dev.sharedarrays;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * What a segment's control block says, read without attaching: for {@code ls}, {@code inspect}
 * and {@code sweep}. A snapshot; liveness is as of the read.
 *
 * @param path       the file (shm, file) or /proc path (memfd); null for an anonymous array
 * @param handle     the handle to attach it by
 * @param dtype      element type
 * @param shape      shape (a copy)
 * @param bytes      data bytes
 * @param id         the array id
 * @param creator    the process that created it
 * @param attached   processes in its attach slots
 * @param lifetime   who removes it (see {@link Lifetime}); sweep leaves PERSISTENT ones alone
 * @param backend    the backend that created it
 * @param created    creation time
 * @param kind       what the segment holds: an array, or the words of a pool, queue or barrier
 * @param used       slots in use (pool), messages waiting (queue), parties waiting (barrier); -1 for arrays
 * @param capacity   slots (pool), messages it holds at most (queue), parties (barrier); -1 for arrays
 */
public record SegmentInfo(Path path, ArrayHandle handle, DType<?> dtype, long[] shape, long bytes, long id,
                          Participant creator, List<Participant> attached, Lifetime lifetime, Backend backend,
                          Instant created, Kind kind, long used, long capacity) {

    /** What a segment holds. */
    public enum Kind {
        /** A plain array. */
        ARRAY,
        /** An {@link ArrayPool}. */
        POOL,
        /** An {@link ArrayQueue}. */
        QUEUE,
        /** A {@link SharedBarrier}. */
        BARRIER;

        /** The lower-case name {@code ls} shows. */
        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** "array", or the kind with its fill level: "queue 3/64", "pool 14/16", "barrier 1/3". */
    public String fill() {
        return kind == Kind.ARRAY ? kind.id() : kind.id() + " " + used + "/" + capacity;
    }

    /** A process recorded in the segment, and whether it was alive when read. */
    public record Participant(long pid, long startTime, boolean alive) {
        @Override
        public String toString() {
            return pid + (alive ? "" : "(dead)");
        }
    }

    public SegmentInfo {
        java.util.Objects.requireNonNull(lifetime, "lifetime");
        java.util.Objects.requireNonNull(kind, "kind");
        shape = shape.clone();
        attached = List.copyOf(attached);
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** Whether it outlives its creator's close and is left alone by sweep: {@code lifetime() == PERSISTENT}. */
    public boolean persistent() {
        return lifetime == Lifetime.PERSISTENT;
    }

    /**
     * True if the creator or any attached process is alive, as the control block's records say;
     * whether the segment is in use is the kernel's to say (see {@link SharedArrays#sweep}).
     */
    public boolean inUse() {
        return creator.alive() || attached.stream().anyMatch(Participant::alive);
    }

    @Override
    public String toString() {
        return "SegmentInfo(" + handle + (kind == Kind.ARRAY ? "" : ", " + fill()) + ", " + dtype + " " + Arrays.toString(shape) + ", creator " + creator
                + ", attached " + attached + (lifetime == Lifetime.OWNER ? "" : ", " + lifetime.name().toLowerCase(java.util.Locale.ROOT)) + ")";
    }
}
