package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.os.Units;
import dev.sharedarrays.internal.segment.ControlBlock;
import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentDescriptor;
import dev.sharedarrays.internal.segment.SegmentFile;
import dev.sharedarrays.internal.segment.SegmentFacts;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.InsufficientSpaceException;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentExistsException;
import dev.sharedarrays.SharedArrayException;
import dev.sharedarrays.SegmentTruncatedException;
import java.util.function.BiConsumer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * What the descriptor-backed backends share: the exclusive create of a named file (shm, file),
 * mapping a descriptor, and attaching the segment behind a descriptor (shm, file, memfd).
 */
final class SegmentFiles {
    private SegmentFiles() {
    }

    /**
     * Creates target exclusively: the segment is written and reserved in a temporary file in the
     * same directory, then linked to target, so that no process ever sees a half-made segment
     * under its name and an existing file is never touched. The returned segment keeps the
     * descriptor, with the flock(LOCK_SH) taken before the name existed.
     *
     * @param spaceFix what the user can do when the directory is full, for the message
     * @param handleOf the handle of the new segment, given its id
     */
    static Segment createExclusive(Path target, SegmentFacts facts, BiConsumer<MemorySegment, MemorySegment> data, String spaceFix,
            Function<OptionalLong, ArrayHandle> handleOf) {
        Path dir = target.getParent();
        long size = facts.fileSize();
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new SegmentExistsException(target + " already exists; choose another name, attach to it, "
                    + "or remove it (bin/sharedarrays rm)");
        }
        long free = usableSpace(dir);
        if (free >= 0 && size > free) {
            throw noSpace(dir, size, free, spaceFix);
        }
        Path temp = null;
        int fd = -1;
        Arena arena = null;
        boolean linked = false;
        try {
            for (int attempt = 0; fd < 0; attempt++) {
                temp = dir.resolve(Names.temp(Proc.selfPid(), Proc.selfStartTime()));
                fd = openLockedTemp(temp, attempt);
            }
            writeHeaderPage(fd, facts, dir, spaceFix, temp.toString());
            reserve(fd, size, dir, spaceFix, temp.toString());
            arena = Arena.ofShared();
            MemorySegment all = map(fd, size, arena, temp.toString());
            ControlBlock.initializeAfterHeader(all, all.asSlice(size - SegmentDescriptor.CONTROL_SIZE), facts, data);
            int err = Libc.link(temp.toString(), target.toString());
            if (err == Libc.EEXIST) {
                throw new SegmentExistsException(target + " already exists (created concurrently); it was not touched");
            } else if (err != 0) {
                throw Libc.failure("link", temp + " -> " + target, err);
            }
            linked = true;
            Libc.unlink(temp.toString());
            // the descriptor stays open, with its LOCK_SH: the kernel's record that this process uses the file
            return new Segment(facts, true, arena, all, target, fd, handleOf.apply(OptionalLong.of(facts.id())), -1);
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            if (fd >= 0) {
                FileStat mine = Libc.fstat(fd, temp.toString());
                if (mine.isNamedBy(temp.toString())) {
                    Libc.unlink(temp.toString());
                }
                if (linked && mine.isNamedBy(target.toString())) {
                    Libc.unlink(target.toString());
                }
                Libc.close(fd);
            }
            throw e;
        }
    }

    /**
     * Creates temp (O_EXCL) and takes LOCK_SH on it before anything else, so that sweep, which
     * removes a temporary file only when it can lock it exclusively, leaves it alone from then
     * on. Returns -1 if a sweep removed it in the moment between the open and the lock.
     */
    private static int openLockedTemp(Path temp, int attempt) {
        int fd = Libc.open(temp.toString(), Libc.O_RDWR | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0600);
        if (fd < 0) {
            throw Libc.failure("open", temp.toString(), Libc.errno());
        }
        int err = Libc.flock(fd, Libc.LOCK_SH);
        if (err != 0) {
            Libc.close(fd);
            throw Libc.failure("flock(LOCK_SH)", temp.toString(), err);
        }
        if (Libc.fstat(fd, temp.toString()).isNamedBy(temp.toString())) {
            return fd;
        }
        Libc.close(fd);
        if (attempt >= 3) {
            throw new SharedArrayException("cannot create " + temp + ": its temporary file was removed "
                    + (attempt + 1) + " times right after it was made; is another program deleting files in " + temp.getParent() + "?");
        }
        return -1;
    }

    /**
     * Writes the segment's .npy header page at offset 0, before the rest is reserved: from here
     * on the temporary file is recognisably a segment in the making (a page-sized file that
     * starts with the segment mark), which is what sweep requires before it removes a dead
     * create's temporary file; a file killed before this write is empty. One 4096-byte write to
     * a fresh file, so the size is 0 or 4096, never a part of a page.
     */
    private static void writeHeaderPage(int fd, SegmentFacts facts, Path dir, String spaceFix, String subject) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment page = a.allocate(SegmentDescriptor.DATA_OFFSET, SegmentDescriptor.PAGE);
            MemorySegment.copy(SegmentDescriptor.npyHeader(facts.dtype().descr(), facts.shape()), 0, page,
                    java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (int) SegmentDescriptor.DATA_OFFSET);
            long n = Libc.pwrite(fd, page, 0);
            if (n < 0) {
                int err = Libc.errno();
                if (err == Libc.ENOSPC || err == Libc.EFBIG) {
                    throw noSpace(dir, facts.fileSize(), Math.max(0, usableSpace(dir)), spaceFix);
                }
                throw Libc.failure("pwrite", subject + ", " + page.byteSize() + " bytes", err);
            }
            if (n != page.byteSize()) {
                throw new SharedArrayException("pwrite(" + subject + ") wrote " + n + " of " + page.byteSize() + " bytes");
            }
        }
    }

    private static long usableSpace(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private static InsufficientSpaceException noSpace(Path dir, long size, long free, String fix) {
        return new InsufficientSpaceException(dir + " has " + Units.bytes(free) + " free, " + Units.bytes(size)
                + " requested; " + fix, size, free);
    }

    /** Reserves the file's blocks now, so that a full file system fails here and not as SIGBUS later. */
    private static void reserve(int fd, long size, Path dir, String spaceFix, String subject) {
        int err = Libc.posixFallocate(fd, 0, size);
        if (err == Libc.ENOSPC || err == Libc.EFBIG) {
            throw noSpace(dir, size, Math.max(0, usableSpace(dir)), spaceFix);
        } else if (err != 0) {
            throw Libc.failure("posix_fallocate", subject + ", " + size + " bytes", err);
        }
    }

    /** Maps size bytes of fd shared, read-write; the arena's close unmaps. */
    static MemorySegment map(int fd, long size, Arena arena, String subject) {
        long address = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED, fd, 0, subject);
        return MemorySegment.ofAddress(address).reinterpret(size, arena, s -> Libc.munmap(address, size));
    }

    /**
     * Opens the file at path for attach ({@link SegmentFile#open}: no symbolic link, no blocking,
     * a regular, trusted, fully allocated file), takes flock(LOCK_SH) on it and checks that the
     * path still names it, then {@link #attach}es it; the segment keeps the descriptor, and with
     * it the lock, until it is closed.
     *
     * @param handleOf the handle of the attached segment, given its id
     */
    static Segment attachFile(Path path, ArrayHandle expected, AttachOptions options,
            Function<OptionalLong, ArrayHandle> handleOf) {
        try (SegmentFile file = SegmentFile.open(path, true, options::trusts, "attach")) {
            file.lockShared("attach");
            long size = file.stat().size();
            return attach(file.release(), path, size, expected, path.toString(), handleOf);
        }
    }

    /**
     * Maps and validates the segment behind fd, which this call takes over: kept by the segment
     * (its flock with it), closed on failure.
     *
     * @param path     the file of a shm or file segment (which may shrink under us), null for a memfd
     * @param size     the file size the descriptor's checks saw
     * @param expected the handle attached by; its id, if any, must be the segment's
     * @param where    the path or handle, for messages
     * @throws SegmentTruncatedException if the file shrank while it was read
     */
    static Segment attach(int fd, Path path, long size, ArrayHandle expected, String where,
            Function<OptionalLong, ArrayHandle> handleOf) {
        Arena arena = null;
        MemorySegment control = null;
        int slot = -1;
        try {
            ControlBlock.checkFileSize(size, where);
            arena = Arena.ofShared();
            MemorySegment all = map(fd, size, arena, where);
            SegmentFacts facts = validated(all, size, expected, where);
            long now = path != null ? Libc.fileSize(fd, where) : size;
            if (now < size) {
                // the JVM cannot recover from a fault in an interpreted compare-and-set: look first
                throw new SegmentTruncatedException(path, size, now, null);
            }
            control = all.asSlice(size - SegmentDescriptor.CONTROL_SIZE);
            slot = ControlBlock.registerAttach(control, where);
            OutOfLineAccess.poll(); // a fault of the reads above surfaces here, inside this try
            return new Segment(facts, false, arena, all, path, fd, handleOf.apply(OptionalLong.of(facts.id())), slot);
        } catch (RuntimeException | Error e) {
            RuntimeException truncated = null;
            try {
                if (e instanceof InternalError && path != null) {
                    // the JDK's report of a SIGBUS: the file shrank under the mapping since fstat
                    truncated = new SegmentTruncatedException(path, size, Libc.fileSize(fd, where), e);
                } else if (slot >= 0) {
                    ControlBlock.releaseAttach(control, slot);
                }
            } catch (RuntimeException | Error ignored) {
                // the failure being reported matters more
            } finally {
                if (arena != null) {
                    arena.close();
                }
                Libc.close(fd);
            }
            if (truncated != null) {
                throw truncated;
            }
            throw e;
        }
    }

    private static SegmentFacts validated(MemorySegment all, long size, ArrayHandle expected, String where) {
        SegmentFacts facts = ControlBlock.validate(all, all.asSlice(size - SegmentDescriptor.CONTROL_SIZE), size, where);
        if (expected.id().isPresent() && expected.id().getAsLong() != facts.id()) {
            throw new InvalidSegmentException("cannot attach " + where + ": handle " + expected + " expects array id "
                    + HexFormat.of().toHexDigits(expected.id().getAsLong()) + ", the segment has id "
                    + HexFormat.of().toHexDigits(facts.id()) + " (the name was reused for another array)");
        }
        return facts;
    }
}
