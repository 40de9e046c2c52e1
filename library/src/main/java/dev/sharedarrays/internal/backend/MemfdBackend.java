package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.os.Units;
import dev.sharedarrays.internal.segment.ControlBlock;
import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.SegmentFile;
import dev.sharedarrays.internal.segment.SegmentScan;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.InsufficientSpaceException;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import java.util.function.BiConsumer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Arrays in memfd_create memory, sealed against shrink and grow. Other processes attach through
 * /proc/&lt;pid&gt;/fd/&lt;fd&gt; or receive the descriptor over a Unix socket ({@link FdPassing}); the
 * memory goes when the last descriptor and mapping go.
 */
final class MemfdBackend implements SegmentBackend<ArrayHandle.Memfd> {

    @Override
    public Segment create(SegmentFacts facts, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data) {
        String name = Names.orGenerated(options.name());
        long size = facts.fileSize();
        int fd = Libc.memfdCreate(name, Libc.MFD_CLOEXEC | Libc.MFD_ALLOW_SEALING);
        if (fd < 0) {
            throw Libc.failure("memfd_create", name, Libc.errno());
        }
        Arena arena = null;
        try {
            Libc.ftruncate(fd, size, "memfd " + name);
            int err = Libc.posixFallocate(fd, 0, size);
            if (err == Libc.ENOSPC || err == Libc.ENOMEM) {
                throw new InsufficientSpaceException("cannot reserve " + Units.bytes(size) + " for memfd " + name
                        + ": posix_fallocate failed with errno " + err + " (" + Libc.strerror(err)
                        + "); free memory or raise the memory limit of this process", size, -1);
            } else if (err != 0) {
                throw Libc.failure("posix_fallocate", "memfd " + name + ", " + size + " bytes", err);
            }
            if (Libc.fcntl(fd, Libc.F_ADD_SEALS, Libc.F_SEAL_SHRINK | Libc.F_SEAL_GROW | Libc.F_SEAL_SEAL) != 0) {
                throw Libc.failure("fcntl(F_ADD_SEALS)", "memfd " + name, Libc.errno());
            }
            arena = Arena.ofShared();
            MemorySegment all = SegmentFiles.map(fd, size, arena, "memfd " + name);
            ControlBlock.initialize(all, all.asSlice(size - SegmentDescriptor.CONTROL_SIZE), facts, data);
            ArrayHandle handle = ArrayHandle.memfd(Proc.selfPid(), fd, OptionalLong.of(facts.id()));
            return new Segment(facts, true, arena, all, null, fd, handle, -1);
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            Libc.close(fd);
            throw e;
        }
    }

    /** A magic link, not a symbolic one: it cannot be opened with O_NOFOLLOW, so the checks after open decide. */
    @Override
    public Segment attach(ArrayHandle.Memfd h, AttachOptions options) {
        String proc = "/proc/" + h.pid() + "/fd/" + h.fd();
        int fd = Libc.open(proc, Libc.O_RDWR | Libc.O_CLOEXEC | Libc.O_NONBLOCK, 0);
        if (fd < 0) {
            int errno = Libc.errno();
            if (errno == Libc.ENOENT) {
                throw new SegmentNotFoundException("cannot attach " + h + ": " + proc
                        + " does not exist (process " + h.pid() + " exited or closed the array)");
            }
            if (errno == Libc.ENXIO || errno == Libc.EISDIR) {
                throw notSealedMemfd(h.toString(), proc, errno == Libc.EISDIR ? "a directory" : "a socket or a device");
            }
            throw Libc.failure("open", proc, errno);
        }
        return attachDescriptor(fd, h, proc, options);
    }

    /**
     * Attaches the memfd segment behind fd, which this call takes over (kept open while
     * attached, to pass on and to hold its flock(LOCK_SH); closed on failure). Only a memfd
     * sealed against shrink and grow is accepted: any other descriptor could be shrunk under
     * the mapping.
     *
     * @param expected the handle attached by; its id, if any, must be the segment's
     * @param options  which owners besides this user are trusted
     * @throws InvalidSegmentException if fd is not a sealed memfd of a trusted owner
     */
    static Segment attachDescriptor(int fd, ArrayHandle expected, String where, AttachOptions options) {
        long size;
        try {
            FileStat s = Libc.fstat(fd, where);
            if (!s.isRegular()) {
                throw notSealedMemfd(expected.toString(), where, s.kind());
            }
            int seals = Libc.fcntl(fd, Libc.F_GET_SEALS, 0);
            int needed = Libc.F_SEAL_SHRINK | Libc.F_SEAL_GROW;
            if (seals < 0 || (seals & needed) != needed) {
                throw notSealedMemfd(expected.toString(), where, seals < 0 ? "a file that cannot be sealed"
                        : "a memfd without the seals against shrink and grow (seals 0x" + Integer.toHexString(seals) + ")");
            }
            SegmentFile.check(s, where, options::trusts, "attach");
            SegmentFile.lockShared(fd, where, "attach"); // bounded: the owner of a memfd may hold LOCK_EX on it
            size = s.size();
        } catch (RuntimeException | Error e) {
            Libc.close(fd);
            throw e;
        }
        return SegmentFiles.attach(fd, null, size, expected, where, id -> ArrayHandle.memfd(Proc.selfPid(), fd, id));
    }

    private static InvalidSegmentException notSealedMemfd(String handle, String where, String what) {
        return new InvalidSegmentException("cannot attach " + handle + ": " + where + " is " + what
                + ", not a sealed memfd; memfd arrays are memfd_create memory sealed against shrink and grow"
                + " (F_SEAL_SHRINK|F_SEAL_GROW), so that no process can shrink them under a mapping");
    }

    @Override
    public SegmentInfo inspect(ArrayHandle.Memfd h) {
        Path proc = Path.of("/proc", Long.toString(h.pid()), "fd", Integer.toString(h.fd()));
        // O_NONBLOCK: a descriptor that is a pipe or FIFO must not block the caller
        int fd = Libc.open(proc.toString(), Libc.O_RDONLY | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new SegmentNotFoundException(proc + " cannot be opened (" + Libc.strerror(Libc.errno())
                    + "): process " + h.pid() + " exited or closed the array");
        }
        try {
            FileStat s = Libc.fstat(fd, proc.toString());
            if (!s.isRegular()) {
                throw new InvalidSegmentException("cannot inspect " + h + ": " + proc + " is " + s.kind() + ", not a memfd");
            }
            return SegmentScan.readDescriptor(fd, proc, h);
        } finally {
            Libc.close(fd);
        }
    }
}
