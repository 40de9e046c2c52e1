package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.sync.ArrayLock;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Backend;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.NativeCallException;
import dev.sharedarrays.SegmentTruncatedException;
import dev.sharedarrays.internal.sync.SegmentKey;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * One process's view of a segment: the mapping, the descriptor it keeps, its attach slot, and
 * whether it owns the OS resource.
 *
 * <p>The descriptor of a shm or file segment carries this process's {@code flock(LOCK_SH)}: the
 * kernel's record that the file is in use, dropped when the descriptor is closed (by
 * {@link #close}, or by the kernel when the process dies). Removing the name on close follows
 * the segment's {@link Lifetime} and is identity-checked: only the file this descriptor has
 * open is unlinked, never whatever the name names now.
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
    private String handleText;
    private final int slot;
    private final ArrayLock lock;
    private final SegmentKey key;
    /** The identity of the file behind fd (or at path when this view has no fd); null for anonymous. */
    private final FileStat stat;
    /** A process-local array: no name, not in the registry, its lock its own, its memory freed by the GC. */
    private final boolean local;
    private volatile int fd;
    private volatile boolean closed;

    /**
     * @param owner  whether this process created the segment (and removes it on close as its lifetime says)
     * @param arena  the arena of the mapping, closed on close; null for a borrowed view
     * @param all    header, data and control block
     * @param path   the file of shm and file segments, else null
     * @param fd     the descriptor this view keeps open and closes on close (shm and file: holding
     *               flock(LOCK_SH); memfd), else -1
     * @param slot   the attach slot this view holds, else -1
     */
    public Segment(SegmentFacts facts, boolean owner, Arena arena, MemorySegment all,
            Path path, int fd, ArrayHandle handle, int slot) {
        this(facts, owner, arena, all, all.asSlice(SegmentDescriptor.DATA_OFFSET, facts.dataLength()),
                all.asSlice(all.byteSize() - SegmentDescriptor.CONTROL_SIZE, SegmentDescriptor.CONTROL_SIZE),
                path, fd, handle, slot, identity(fd, path), false);
    }

    /**
     * A process-local array's segment: its elements and control block are memory the garbage
     * collector frees. Closing it marks it closed and closes {@code arena} (if not null), which
     * frees the elements at once for the next array; nothing outside this object refers to it.
     */
    public static Segment local(SegmentFacts facts, MemorySegment data, Arena arena, MemorySegment control, ArrayHandle handle) {
        return new Segment(facts, true, arena, data, data, control, null, -1, handle, -1, null, true);
    }

    private Segment(SegmentFacts facts, boolean owner, Arena arena, MemorySegment all, MemorySegment data,
            MemorySegment control, Path path, int fd, ArrayHandle handle, int slot, FileStat stat, boolean local) {
        this.facts = facts;
        this.owner = owner;
        this.arena = arena;
        this.all = all;
        this.data = data;
        this.control = control;
        this.path = path;
        this.fd = fd;
        this.handle = handle;
        this.slot = slot;
        this.stat = stat;
        this.key = stat != null ? SegmentKey.of(stat) : SegmentKey.ofId(facts.id());
        this.local = local;
        if (local) {
            this.lock = ArrayLock.unshared();
        } else {
            this.lock = ArrayLock.retain(key);
            Registry.add(this);
        }
    }

    /** The file behind fd, else the file at path (a view without a descriptor), else null. */
    private static FileStat identity(int fd, Path path) {
        if (fd >= 0) {
            return Libc.fstat(fd, path != null ? path.toString() : "descriptor " + fd);
        }
        return path != null ? Libc.lstat(path.toString()) : null;
    }

    /** A view of the same memory for another array object in this process; closing it unmaps nothing. */
    public Segment borrow() {
        checkOpen();
        // the same scope as ours: when the owner unmaps, the view fails cleanly instead of faulting
        return new Segment(facts, false, null, all, data, control, path, -1, handle, -1, stat, false);
    }

    /** What this process's in-process state of the segment (its lock) is keyed by. */
    public SegmentKey key() {
        return key;
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

    /** True for a process-local array (see {@link #local}). */
    public boolean isLocal() {
        return local;
    }

    public ArrayHandle handle() {
        return handle;
    }

    /** {@link #handle()} as text, made once: each queue message of this segment's arrays carries it. */
    public String handleText() {
        String t = handleText; // racy but safe: a String is immutable, and any thread makes the same one
        if (t == null) {
            t = handle.toString();
            handleText = t;
        }
        return t;
    }

    /** The file of shm and file segments, else null. */
    public Path path() {
        return path;
    }

    /** The descriptor this view holds (shm, file, memfd), else -1. */
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
        lock.lockWrite(control(), handle);
    }

    /** {@link #lockWrite()} that gives up after timeoutNanos; see {@link ArrayLock#lockWrite(MemorySegment, Object, long)}. */
    public void lockWrite(long timeoutNanos) {
        lock.lockWrite(control(), handle, timeoutNanos);
    }

    public void unlockWrite() {
        lock.unlockWrite(control);
    }

    /** Takes the array's read lock; pair with {@link #unlockRead}. */
    public void lockRead() {
        lock.lockRead(control());
    }

    /** {@link #lockRead()} that gives up after timeoutNanos; see {@link ArrayLock#lockRead(MemorySegment, Object, long)}. */
    public void lockRead(long timeoutNanos) {
        lock.lockRead(control(), handle, timeoutNanos);
    }

    public void unlockRead() {
        lock.unlockRead(control);
    }

    /**
     * True if no other open descriptor of this file (in any process, this one included) holds it:
     * this view's flock(LOCK_SH) converts to LOCK_EX|LOCK_NB, then back. Always false for memfd
     * and anonymous segments, which carry no flock.
     */
    public synchronized boolean isSoleUser() {
        if (closed || fd < 0 || path == null) {
            return false;
        }
        boolean sole = Libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB) == 0;
        Libc.flock(fd, Libc.LOCK_SH);
        return sole;
    }

    /** True for shm and file segments, whose file any process of the user may shrink; memfd is sealed. */
    public boolean mayShrink() {
        return path != null && fd >= 0;
    }

    /**
     * Throws if the file is now shorter than the mapping, before a bulk operation touches it:
     * a fault inside a SIMD kernel would crash the JVM. One lseek; memfd and anonymous
     * segments cannot shrink and skip it.
     *
     * @throws SegmentTruncatedException if the file shrank
     */
    public void checkNotTruncated() {
        long now = currentFileSize();
        if (now < all.byteSize()) {
            throw new SegmentTruncatedException(path, all.byteSize(), now, null);
        }
    }

    /**
     * Makes the next access fault if the file shrank under the mapping by so much that an access
     * of it can fault, without a system call: reads the mapping's last byte out of line
     * ({@link OutOfLineAccess}), whose fault the JDK delivers as an {@link InternalError} at that
     * call's return, inside the caller's try (turn it into the exception with {@link #truncated}).
     * Pages past the new end fault, and those are a suffix of the mapping: if the last byte does
     * not fault, no byte does. A shrink that leaves part of the last page in the file faults
     * nothing and passes; {@link #checkNotTruncated} (one lseek) sees that too. Memfd and
     * anonymous segments cannot shrink and skip it.
     */
    public void probeNotTruncated() {
        if (mayShrink() && !closed) {
            OutOfLineAccess.access(OutOfLineAccess.GET_LONG, ElementType.U8, all, all.byteSize() - 1, 0, 0, 0);
        }
    }

    /** True if the file is now shorter than the mapping (never for memfd and anonymous segments). */
    public boolean isTruncated() {
        return currentFileSize() < all.byteSize();
    }

    /** The file's size now, for a segment whose file may shrink and is open; else the mapping's size. */
    private long currentFileSize() {
        return mayShrink() && !closed ? Libc.fileSize(fd, path.toString()) : all.byteSize();
    }

    /**
     * What a fault in an access of this segment's memory means (the JDK reports a SIGBUS in an
     * access as an InternalError): for a file that can shrink, the file was truncated, whatever
     * its size is now; anything else is rethrown as it is.
     */
    public SegmentTruncatedException truncated(InternalError fault) {
        if (!mayShrink() || closed) {
            throw fault;
        }
        long now;
        try {
            now = Libc.fileSize(fd, path.toString());
        } catch (RuntimeException e) {
            fault.addSuppressed(e);
            throw fault;
        }
        return new SegmentTruncatedException(path, all.byteSize(), now, fault);
    }

    /**
     * Runs op, which reads or writes this segment's shared words with accesses the JIT may inline
     * (a queue's, pool's or barrier's), so that a fault of a shrunk file cannot escape as an
     * {@link InternalError} at some later frame: the poll in finally delivers it here, whether op
     * returned or threw, and it becomes a {@link SegmentTruncatedException}. A futex call on a word
     * past the new end fails with EFAULT instead of faulting: truncation too. Costs one call that
     * is not inlined, for segments whose file may shrink.
     *
     * @throws SegmentTruncatedException if the file shrank under op
     */
    public <R> R guard(Supplier<R> op) {
        if (!mayShrink()) {
            return op.get();
        }
        try {
            try {
                return op.get();
            } finally {
                OutOfLineAccess.poll();
            }
        } catch (InternalError e) {
            throw truncated(e);
        } catch (NativeCallException e) {
            if (e.errno() != Libc.EFAULT || !mayShrink()) {
                throw e;
            }
            throw new SegmentTruncatedException(path, all.byteSize(), currentFileSize(), e);
        }
    }

    /** {@link #guard(Supplier)} of an op without a result. */
    public void guardRun(Runnable op) {
        guard(() -> {
            op.run();
            return null;
        });
    }

    /**
     * Runs op, a close's update of shared words (leaving, freeing a slot), unless the file is now
     * shorter than the mapping: a close must not fail because another process truncated the
     * file, whose words are gone anyway. False if op was skipped or faulted (shrunk meanwhile).
     */
    public boolean updateUnlessTruncated(Runnable op) {
        if (isTruncated()) {
            return false;
        }
        try {
            guardRun(op);
            return true;
        } catch (SegmentTruncatedException e) {
            return false;
        }
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
     * Detaches this process's view and removes the name as the lifetime says: OWNER when this is
     * the owner; SHARED when this is the last process to close (its flock(LOCK_EX|LOCK_NB)
     * succeeds); PERSISTENT never. Idempotent.
     */
    public void close() {
        switch (facts.lifetime()) {
            case OWNER -> {
                if (owner) {
                    destroy();
                } else {
                    release();
                }
            }
            case SHARED -> closeShared();
            case PERSISTENT -> release();
        }
    }

    /** Owner only: removes the name if it still names this segment's file, then detaches. Idempotent. */
    public void destroy() {
        if (!owner) {
            throw new IllegalStateException("only the creator (pid " + facts.creatorPid() + ") may destroy "
                    + handle + "; this process attached it: close() it instead");
        }
        synchronized (this) {
            if (!closed) {
                unlinkIfStillNamed();
            }
        }
        release();
    }

    /**
     * Last one out removes the name. Converting LOCK_SH to LOCK_EX|LOCK_NB is not atomic: a
     * failed attempt has already dropped our shared lock. So of two processes closing at once,
     * the later attempt finds the earlier one's lock gone and wins: at least one removes it.
     */
    private void closeShared() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (fd >= 0 && path != null && Libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB) == 0) {
                unlinkIfStillNamed();
            }
        }
        release();
    }

    /** Unlinks path if it still names the file this segment has open: a re-created name is left alone. */
    private void unlinkIfStillNamed() {
        if (path == null) {
            return;
        }
        if (stat == null || stat.isNamedBy(path.toString())) {
            Libc.unlink(path.toString());
        }
    }

    private synchronized void release() {
        if (closed) {
            return;
        }
        if (slot >= 0 && !isTruncated()) { // a truncated file's control block is gone with its slots
            try {
                ControlBlock.releaseAttach(control, slot);
                OutOfLineAccess.poll();
            } catch (InternalError e) {
                // shrunk since the check: the slot went with the file
            }
        }
        closed = true;
        if (local) {
            if (arena != null) {
                closeArena();
            }
            return;
        }
        Registry.remove(this);
        ArrayLock.release(key);
        try {
            if (arena != null) {
                closeArena();
            }
        } finally {
            // the flock goes with the descriptor: never keep it because unmapping failed
            if (fd >= 0) {
                Libc.close(fd);
                fd = -1;
            }
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
