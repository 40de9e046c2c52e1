package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentFacts;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.SegmentInfo;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where one backend keeps a segment's memory: how it creates one, attaches one by its kind of
 * handle, reads one without attaching, and which directory ls and sweep scan for it.
 * {@link Backends} holds one instance per backend and dispatches to them. Implementations are
 * stateless and thread-safe.
 *
 * @param <H> the handle kind this backend's arrays have
 */
interface SegmentBackend<H extends ArrayHandle> {

    /**
     * Creates a segment with these facts, zero-filled, then handed to {@code data} before any
     * other process can see it; {@code options} gives the name or file.
     *
     * @throws dev.sharedarrays.SegmentExistsException if the name or file exists (it is not touched)
     * @throws dev.sharedarrays.InsufficientSpaceException if the memory cannot be reserved
     */
    Segment create(SegmentFacts facts, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data);

    /**
     * Opens, checks, maps and validates the segment the handle names, takes an attach slot in it
     * and holds flock(LOCK_SH) on its descriptor until the segment is closed.
     *
     * @param options which owners besides this user are trusted
     * @throws dev.sharedarrays.SegmentNotFoundException if nothing is there
     * @throws dev.sharedarrays.InvalidSegmentException if what is there is not the handle's
     *         segment, or not a trusted, fully allocated regular file (memfd: sealed memfd)
     * @throws dev.sharedarrays.SegmentTruncatedException if the file shrank while it was read
     */
    Segment attach(H handle, AttachOptions options);

    /** What the segment's control block says, without attaching. */
    SegmentInfo inspect(H handle);

    /** The file the handle names, for backends whose arrays are files with a name. */
    default Optional<Path> file(H handle) {
        return Optional.empty();
    }

    /** The directory ls and sweep look in for this backend's segments, if it has one now. */
    default Optional<Path> scanDirectory() {
        return Optional.empty();
    }
}
