package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.segment.ControlBlock;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.Sweeper;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.DType;
import dev.sharedarrays.SegmentInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The four backends, and the one place that picks a backend for an enum value or a handle.
 * Thread-safe.
 */
public final class Backends {
    private static final ShmBackend SHM = new ShmBackend();
    private static final MemfdBackend MEMFD = new MemfdBackend();
    private static final FileBackend FILE = new FileBackend();
    private static final AnonymousBackend ANONYMOUS = new AnonymousBackend();

    private Backends() {
    }

    /**
     * Creates a zero-filled array on the backend {@link BackendSelection#forCreate} picks.
     *
     * @throws IllegalArgumentException if the shape is not a valid array shape
     */
    public static Segment create(DType<?> dtype, long[] shape, CreateOptions options) {
        return create(dtype, shape, options, (data, control) -> { });
    }

    /**
     * As {@link #create(DType, long[], CreateOptions)}, with {@code data} writing the first
     * contents before any other process can attach (a barrier's words, say).
     */
    public static Segment create(DType<?> dtype, long[] shape, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data) {
        Backend kind = BackendSelection.forCreate(options);
        SegmentFacts facts = SegmentFacts.forNew(dtype, shape, options.lifetime(), kind);
        AutoSweep.maybeStart();
        return of(kind).create(facts, options, data);
    }

    /**
     * A process-local array (see {@link LocalMemory}), zero-filled if {@code zeroed}, else of
     * any content (for results that write every element): no file; closing it is optional and
     * gives a large array's memory back for the next one at once; its handle names it only to say
     * it cannot be attached.
     *
     * @throws IllegalArgumentException if the shape is not a valid array shape
     */
    public static Segment createLocal(DType<?> dtype, long[] shape, boolean zeroed) {
        SegmentFacts facts = SegmentFacts.forLocal(dtype, shape);
        // no .npy header: nothing reads one without a file
        long head = SegmentDescriptor.CONTROL_SIZE;
        long size = facts.dataLength();
        boolean small = size <= LocalMemory.INLINE_MAX;
        MemorySegment block = small ? LocalMemory.withControl(head, size) : Arena.ofAuto().allocate(head, 64);
        MemorySegment control = block.asSlice(0, head);
        ControlBlock.initializeControl(control, facts);
        LocalMemory.Allocation data = small ? new LocalMemory.Allocation(LocalMemory.dataOf(block, head, size), null)
                : LocalMemory.allocate(size, zeroed);
        return Segment.local(facts, data.data(), data.arena(), control, ArrayHandle.anonymous(Proc.selfPid(), OptionalLong.of(facts.id())));
    }

    /** Bytes of process-local arrays this process has not yet freed (see LocalMemory: small ones of 4 KiB or less are not counted). */
    public static long localBytes() {
        return LocalMemory.live();
    }

    /** Collections this process's process-local arrays have asked for and that ran (see LocalMemory). */
    public static long localCollections() {
        return LocalMemory.collections();
    }

    /** Attaches the segment a handle names, trusting only this user's segments. */
    public static Segment attach(ArrayHandle handle) {
        return attach(handle, AttachOptions.defaults());
    }

    /** Attaches the segment a handle names, trusting the owners {@code options} trust. */
    public static Segment attach(ArrayHandle handle, AttachOptions options) {
        return bind(handle).attach(options);
    }

    /** Reads the segment a handle names, without attaching. */
    public static SegmentInfo inspect(ArrayHandle handle) {
        return bind(handle).inspect();
    }

    /**
     * Removes the file of a shm or file array: with {@code force} whoever is attached, else only
     * if no process holds it (see {@link Sweeper#remove}).
     *
     * @throws IllegalArgumentException if the handle names no file (memfd, anonymous)
     */
    public static Path remove(ArrayHandle handle, boolean force) {
        return bind(handle).file().map(p -> Sweeper.remove(p, force, DeadQueueSlots.INSTANCE)).orElseThrow(() -> new IllegalArgumentException(
                handle.backend().id() + " arrays have no name to remove; they go when their last user closes them"));
    }

    /**
     * Removes the unused segments of these directories (see {@link Sweeper#sweep}); the pool
     * slots in flight in a queue it removes go back to their pools.
     */
    public static List<Path> sweep(List<Path> directories, boolean dryRun) {
        return Sweeper.sweep(directories, dryRun, DeadQueueSlots.INSTANCE);
    }

    /**
     * For a pool whose slots stay in flight while an acquire waits: starts a sweep of the shm
     * directory on a daemon thread, which frees the slots of queues whose processes all died; at
     * most once a second per process, never if {@code SHARED_ARRAYS_AUTO_SWEEP=0}.
     */
    public static void sweepForStuckSlots() {
        AutoSweep.maybeStartForPool();
    }

    /** The directories ls and sweep look in, in the order of {@link Backend}. */
    public static List<Path> scanDirectories() {
        List<Path> dirs = new ArrayList<>();
        for (Backend kind : Backend.values()) {
            of(kind).scanDirectory().ifPresent(dirs::add);
        }
        return dirs;
    }

    private static SegmentBackend<?> of(Backend kind) {
        return switch (kind) {
            case SHM -> SHM;
            case MEMFD -> MEMFD;
            case FILE -> FILE;
            case ANONYMOUS -> ANONYMOUS;
        };
    }

    private static Bound<?> bind(ArrayHandle handle) {
        return switch (handle) {
            case ArrayHandle.Shm h -> new Bound<>(SHM, h);
            case ArrayHandle.Memfd h -> new Bound<>(MEMFD, h);
            case ArrayHandle.File h -> new Bound<>(FILE, h);
            case ArrayHandle.Anonymous h -> new Bound<>(ANONYMOUS, h);
        };
    }

    /** A handle with the backend of its kind, so that each backend receives only its own records. */
    private record Bound<H extends ArrayHandle>(SegmentBackend<H> backend, H handle) {
        Segment attach(AttachOptions options) {
            return backend.attach(handle, options);
        }

        SegmentInfo inspect() {
            return backend.inspect(handle);
        }

        Optional<Path> file() {
            return backend.file(handle);
        }
    }
}
