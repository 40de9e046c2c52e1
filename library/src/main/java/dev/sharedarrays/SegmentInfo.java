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
 * @param persistent whether it outlives its creator's close (sweep leaves it alone)
 * @param backend    the backend that created it
 * @param created    creation time
 */
public record SegmentInfo(Path path, ArrayHandle handle, DType<?> dtype, long[] shape, long bytes, long id,
                          Participant creator, List<Participant> attached, boolean persistent, Backend backend,
                          Instant created) {

    /** A process recorded in the segment, and whether it was alive when read. */
    public record Participant(long pid, long startTime, boolean alive) {
        @Override
        public String toString() {
            return pid + (alive ? "" : "(dead)");
        }
    }

    public SegmentInfo {
        shape = shape.clone();
        attached = List.copyOf(attached);
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** True if the creator or any attached process is alive. */
    public boolean inUse() {
        return creator.alive() || attached.stream().anyMatch(Participant::alive);
    }

    @Override
    public String toString() {
        return "SegmentInfo(" + handle + ", " + dtype + " " + Arrays.toString(shape) + ", creator " + creator
                + ", attached " + attached + (persistent ? ", persistent" : "") + ")";
    }
}
