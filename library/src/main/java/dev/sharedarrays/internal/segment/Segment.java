package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.sync.ArrayLock;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Backend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One process's view of a segment: the mapping, the descriptor it keeps (memfd only), its
 * attach slot, and whether it owns the OS resource.
 *
 * <p>The mapping belongs to a shared {@link Arena}: closing it unmaps, and any thread that
 * still touches the memory afterwards gets an {@link IllegalStateException} from the JDK
 * instead of reading unmapped memory. Thread-safe.
 */
public final class Segment {
    private final SegmentFacts facts;
    private final boolean owner;
    /** Null for a same-process view that borrows the owner's mapping. */
    private final Arena arena;
    /** Header, data and control block; scoped to the owner's arena. */
    private final MemorySegment all;
    private final MemorySegment data;
    private final MemorySegment control;
    private final Path path;
    private final ArrayHandle handle;
    private final int slot;
    private final ArrayLock lock;
    private int fd;
    private volatile boolean closed;

    /**
     * @param owner  whether this process created the segment (and removes it on close unless persistent)
     * @param arena  the arena of the mapping, closed on close; null for a borrowed view
     * @param all    header, data and control block
     * @param path   the file of shm and file segments, else null
     * @param fd     the memfd descriptor this view keeps open, else -1
     * @param slot   the attach slot this view holds, else -1
     */
    public Segment(SegmentFacts facts, boolean owner, Arena arena, MemorySegment all,
            Path path, int fd, ArrayHandle handle, int slot) {
        this.facts = facts;
        this.owner = owner;
        this.arena = arena;
        this.all = all;
        this.data = all.asSlice(SegmentDescriptor.DATA_OFFSET, facts.dataLength());
        this.control = all.asSlice(all.byteSize() - SegmentDescriptor.CONTROL_SIZE, SegmentDescriptor.CONTROL_SIZE);
        this.path = path;
        this.fd = fd;
        this.handle = handle;
        this.slot = slot;
        this.lock = ArrayLock.retain(facts.id());
        Registry.add(this);
    }

    /** A view of the same memory for another array object in this process; closing it unmaps nothing. */
    public Segment borrow() {
        checkOpen();
        // the same scope as ours: when the owner unmaps, the view fails cleanly instead of faulting
        return new Segment(facts, false, null, all, path, -1, handle, -1);
    }

    public Backend backend() {
        return handle.backend();
    }

    public SegmentFacts facts() {
        return facts;
    }

    public boolean isOwner() {
        return owner;
    }

    public ArrayHandle handle() {
        return handle;
    }

    /** The file of shm and file segments, else null. */
    public Path path() {
        return path;
    }

    /** The memfd descriptor this process holds, else -1. */
    public int fd() {
        return fd;
    }

    public boolean isClosed() {
        return closed;
    }

    /** The element bytes. */
    public MemorySegment data() {
        checkOpen();
        return data;
    }

    /** The control block, for lock and atomic words. */
    public MemorySegment control() {
        checkOpen();
        return control;
    }

    /** Takes the array's write lock (see {@link ArrayLock}); pair with {@link #unlockWrite}. */
    public void lockWrite() {
        lock.lockWrite(control(), handle.toString());
    }

    public void unlockWrite() {
        lock.unlockWrite(control);
    }

    /** Takes the array's read lock; pair with {@link #unlockRead}. */
    public void lockRead() {
        lock.lockRead(control());
    }

    public void unlockRead() {
        lock.unlockRead(control);
    }

    public void checkOpen() {
        if (closed) {
            throw new IllegalStateException("array " + handle + " is closed");
        }
    }

    /** Flushes a file-backed array to its file (msync); a no-op for memory backends. */
    public void sync() {
        checkOpen();
        if (handle instanceof ArrayHandle.File) {
            Libc.msync(all.address(), all.byteSize(), path.toString());
        }
    }

    /**
     * Detaches this process's view; an owner of a non-persistent array also destroys it.
     * Idempotent.
     */
    public void close() {
        if (owner && !facts.persistent()) {
            destroy();
        } else {
            release();
        }
    }

    /** Owner only: removes the name or file, then detaches. Idempotent. */
    public void destroy() {
        if (!owner) {
            throw new IllegalStateException("only the creator (pid " + facts.creatorPid() + ") may destroy "
                    + handle + "; this process attached it: close() it instead");
        }
        synchronized (this) {
            if (!closed && path != null) {
                Libc.unlink(path.toString());
            }
        }
        release();
    }

    private synchronized void release() {
        if (closed) {
            return;
        }
        if (slot >= 0) {
            ControlBlock.releaseAttach(control, slot);
        }
        closed = true;
        Registry.remove(this);
        ArrayLock.release(facts.id());
        if (arena != null) {
            closeArena();
        }
        if (fd >= 0) {
            Libc.close(fd);
            fd = -1;
        }
    }

    private void closeArena() {
        // another thread inside an access makes close fail; that access is short, so retry
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException e) {
                if (attempt >= 1000) {
                    throw new IllegalStateException("could not unmap " + handle + ": still in use by another thread", e);
                }
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }
}
