package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.backend.Config;
import dev.sharedarrays.internal.backend.Segments;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Backend;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrayException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads segments without attaching them (for ls and inspect) and removes those whose
 * processes all died (sweep). Only files whose control block validates are ours; anything else
 * in the directory is left alone.
 */
public final class Sweeper {
    private Sweeper() {
    }

    /** The directories sweep and ls look in. */
    static List<Path> directories() {
        List<Path> dirs = new ArrayList<>();
        try {
            dirs.add(Config.shmDir());
        } catch (IllegalStateException e) {
            // no shm directory: nothing there to list
        }
        Path files = Config.defaultFileDir();
        if (Files.isDirectory(files, LinkOption.NOFOLLOW_LINKS)) {
            dirs.add(files);
        }
        return dirs;
    }

    /**
     * Reads the segment at path.
     *
     * @throws InvalidSegmentException if it is not one of ours, or is damaged
     */
    static SegmentInfo read(Path path, ArrayHandle handleOrNull) {
        String where = path.toString();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
             Arena a = Arena.ofConfined()) {
            long size = ch.size();
            ControlBlock.checkFileSize(size, where);
            MemorySegment header = a.allocate(SegmentLayout.DATA_OFFSET, SegmentLayout.PAGE);
            MemorySegment control = a.allocate(SegmentLayout.CONTROL_SIZE, SegmentLayout.PAGE);
            readFully(ch, header, 0);
            readFully(ch, control, size - SegmentLayout.CONTROL_SIZE);
            SegmentMeta m = ControlBlock.validate(header, control, size, where);
            ArrayHandle handle = handleOrNull != null ? handleOrNull
                    : m.backend() == Backend.FILE ? ArrayHandle.file(path, OptionalLong.of(m.id()))
                    : ArrayHandle.shm(path.getFileName().toString(), OptionalLong.of(m.id()));
            List<SegmentInfo.Participant> attached = new ArrayList<>();
            for (ControlBlock.Slot s : ControlBlock.attached(control)) {
                attached.add(new SegmentInfo.Participant(s.pid(), s.start(), Proc.isAlive(s.pid(), s.start())));
            }
            SegmentInfo.Participant creator = new SegmentInfo.Participant(m.creatorPid(), m.creatorStart(),
                    Proc.isAlive(m.creatorPid(), m.creatorStart()));
            return new SegmentInfo(path, handle, m.dtype(), m.shape(), m.dataLength(), m.id(), creator, attached,
                    m.persistent(), m.backend(), Instant.ofEpochMilli(m.createdMillis()));
        } catch (NoSuchFileException e) {
            throw new SegmentNotFoundException(where + " does not exist");
        } catch (IOException e) {
            throw new InvalidSegmentException("cannot read " + where + ": " + e);
        }
    }

    private static void readFully(FileChannel ch, MemorySegment into, long position) throws IOException {
        var buf = into.asByteBuffer();
        while (buf.hasRemaining()) {
            if (ch.read(buf, position + buf.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + buf.position()));
            }
        }
    }

    /** Our segments in the shm directory and the default file directory; others are skipped. */
    public static List<SegmentInfo> list() {
        List<SegmentInfo> out = new ArrayList<>();
        for (Path dir : directories()) {
            for (Path p : files(dir)) {
                if (p.getFileName().toString().startsWith(Segments.TEMP_PREFIX)) {
                    continue;
                }
                try {
                    out.add(read(p, null));
                } catch (SharedArrayException e) {
                    // not ours or damaged: not listed
                }
            }
        }
        return out;
    }

    private static List<Path> files(Path dir) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.add(p);
                }
            }
        } catch (IOException e) {
            throw new SharedArrayException("cannot list " + dir + ": " + e, e);
        }
        out.sort(null);
        return out;
    }

    /** Reads the segment a handle names, without attaching. */
    public static SegmentInfo inspect(ArrayHandle h) {
        return switch (h.backend()) {
            case SHM -> read(Config.shmDir().resolve(h.name()), null);
            case FILE -> read(h.path(), null);
            case MEMFD -> readProc(h);
            case ANONYMOUS -> {
                Segment s = h.id().isPresent() ? Registry.find(h.id().getAsLong()) : null;
                if (s == null || h.pid() != Proc.selfPid()) {
                    throw new SegmentNotFoundException("anonymous array " + h + " can be inspected only inside process " + h.pid());
                }
                yield readProc(s.handle());
            }
        };
    }

    private static SegmentInfo readProc(ArrayHandle h) {
        // /proc/<pid>/fd/<n> is a magic link: FileChannel with NOFOLLOW would refuse it, so open it via a fresh fd
        Path proc = Path.of("/proc", Long.toString(h.pid()), "fd", Integer.toString(h.fd()));
        int fd = Libc.open(proc.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new SegmentNotFoundException(proc + " cannot be opened (" + Libc.strerror(Libc.errno())
                    + "): process " + h.pid() + " exited or closed the array");
        }
        try {
            return read(Path.of("/proc/self/fd/" + fd), h);
        } finally {
            Libc.close(fd);
        }
    }

    /** Removes dead segments and dead creates' temporary files; returns their paths. */
    public static List<Path> sweep(boolean dryRun) {
        List<Path> removed = new ArrayList<>();
        for (Path dir : directories()) {
            for (Path p : files(dir)) {
                String name = p.getFileName().toString();
                boolean dead;
                if (name.startsWith(Segments.TEMP_PREFIX)) {
                    dead = deadTemp(name);
                } else {
                    try {
                        SegmentInfo info = read(p, null);
                        dead = !info.persistent() && !info.inUse();
                    } catch (SharedArrayException e) {
                        dead = false; // not ours, or damaged: never touched
                    }
                }
                if (dead) {
                    if (!dryRun) {
                        int err = Libc.unlink(p.toString());
                        if (err != 0 && err != Libc.ENOENT) {
                            throw Libc.failure("unlink", p.toString(), err);
                        }
                    }
                    removed.add(p);
                }
            }
        }
        return removed;
    }

    /** ".sa-tmp-<pid>-<start>-<rand>" of a process that is gone. */
    private static boolean deadTemp(String name) {
        String[] parts = name.substring(Segments.TEMP_PREFIX.length()).split("-");
        if (parts.length != 3) {
            return false;
        }
        try {
            return !Proc.isAlive(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Removes one of our segments by name or handle, whoever is attached (they keep their
     * mappings).
     *
     * @throws InvalidSegmentException if the file is not a shared-arrays segment
     */
    public static Path remove(ArrayHandle h) {
        Path p = switch (h.backend()) {
            case SHM -> Config.shmDir().resolve(h.name());
            case FILE -> h.path();
            default -> throw new IllegalArgumentException(h.backend().id()
                    + " arrays have no name to remove; they go when their last user closes them");
        };
        try {
            read(p, null);
        } catch (InvalidSegmentException e) {
            throw new InvalidSegmentException("refusing to remove " + p + ": " + e.getMessage());
        }
        int err = Libc.unlink(p.toString());
        if (err != 0) {
            throw Libc.failure("unlink", p.toString(), err);
        }
        return p;
    }
}
