package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.segment.ControlBlock;
import dev.sharedarrays.internal.segment.Registry;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.SegmentScan;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrayException;
import java.util.function.BiConsumer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;

/**
 * Arrays in MAP_SHARED anonymous memory: no name and no descriptor, so only the creating
 * process reaches them; attach there borrows the owner's mapping from the {@link Registry}.
 */
final class AnonymousBackend implements SegmentBackend<ArrayHandle.Anonymous> {

    @Override
    public Segment create(SegmentFacts facts, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data) {
        long size = facts.fileSize();
        Arena arena = Arena.ofShared();
        try {
            long address = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED | Libc.MAP_ANONYMOUS, -1, 0, "anonymous");
            MemorySegment all = MemorySegment.ofAddress(address).reinterpret(size, arena, s -> Libc.munmap(address, size));
            ControlBlock.initialize(all, all.asSlice(size - SegmentDescriptor.CONTROL_SIZE), facts, data);
            return new Segment(facts, true, arena, all, null, -1,
                    ArrayHandle.anonymous(Proc.selfPid(), OptionalLong.of(facts.id())), -1);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public Segment attach(ArrayHandle.Anonymous h, AttachOptions options) {
        if (h.pid() != Proc.selfPid()) {
            throw new SharedArrayException("cannot attach " + h + ": anonymous arrays live in one process (pid "
                    + h.pid() + ") and this is pid " + Proc.selfPid() + "; create the array with backend shm or memfd to share it");
        }
        Segment owner = h.id().isPresent() ? Registry.find(h.id().getAsLong()) : null;
        if (owner == null) {
            throw new SegmentNotFoundException("cannot attach " + h + ": no open anonymous array with that id in this process");
        }
        return owner.borrow();
    }

    /** Read from the owner's mapping: there is no file to read. */
    @Override
    public SegmentInfo inspect(ArrayHandle.Anonymous h) {
        Segment s = h.id().isPresent() ? Registry.find(h.id().getAsLong()) : null;
        if (s == null || h.pid() != Proc.selfPid()) {
            throw new SegmentNotFoundException("anonymous array " + h + " can be inspected only inside process " + h.pid());
        }
        return SegmentScan.describe(s);
    }
}
