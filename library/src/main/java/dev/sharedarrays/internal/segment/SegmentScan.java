package dev.sharedarrays.internal.segment;

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
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads segments without attaching or changing them, for ls and inspect: a header page and a
 * control page copied to the heap, validated like attach does. Only files whose control block
 * validates are ours; anything else in a directory is skipped. Removal is {@link Sweeper}'s.
 */
public final class SegmentScan {
    private SegmentScan() {
    }

    /** Our segments in these directories, in file-name order per directory; others are skipped. */
    public static List<SegmentInfo> list(List<Path> directories) {
        List<SegmentInfo> out = new ArrayList<>();
        for (Path dir : directories) {
            for (Path p : files(dir)) {
                if (Names.isTemp(p.getFileName().toString())) {
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

    /** The regular files in dir, sorted; symbolic links and directories are not segments. */
    static List<Path> files(Path dir) {
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

    /**
     * Reads the segment at path.
     *
     * @param handleOrNull the handle to report, or null for the shm or file handle of path
     * @throws SegmentNotFoundException if nothing is at path
     * @throws InvalidSegmentException if it is not one of ours, or is damaged
     */
    public static SegmentInfo read(Path path, ArrayHandle handleOrNull) {
        return read(path, path, handleOrNull, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Reads the segment behind descriptor fd of this process (a memfd), reporting it under path
     * and handle.
     *
     * @throws InvalidSegmentException if it is not one of ours, or is damaged
     */
    public static SegmentInfo readDescriptor(int fd, Path path, ArrayHandle handle) {
        // /proc/self/fd/<fd> is a magic link to the memfd: opening it means following it
        return read(Path.of("/proc/self/fd/" + fd), path, handle);
    }

    private static SegmentInfo read(Path source, Path path, ArrayHandle handleOrNull, LinkOption... links) {
        String where = path.toString();
        try (FileChannel ch = FileChannel.open(source, readOptions(links)); Arena a = Arena.ofConfined()) {
            long size = ch.size();
            ControlBlock.checkFileSize(size, where);
            MemorySegment header = a.allocate(SegmentDescriptor.DATA_OFFSET, SegmentDescriptor.PAGE);
            MemorySegment control = a.allocate(SegmentDescriptor.CONTROL_SIZE, SegmentDescriptor.PAGE);
            readFully(ch, header, 0);
            readFully(ch, control, size - SegmentDescriptor.CONTROL_SIZE);
            SegmentFacts f = ControlBlock.validate(header, control, size, where);
            ArrayHandle handle = handleOrNull != null ? handleOrNull
                    : f.backend() == Backend.FILE ? ArrayHandle.file(path, OptionalLong.of(f.id()))
                    : ArrayHandle.shm(path.getFileName().toString(), OptionalLong.of(f.id()));
            return describe(path, handle, f, control);
        } catch (NoSuchFileException e) {
            throw new SegmentNotFoundException(where + " does not exist");
        } catch (IOException e) {
            throw new InvalidSegmentException("cannot read " + where + ": " + e);
        }
    }

    /** What an open segment of this process says, read from its mapping; path is null when it has none. */
    public static SegmentInfo describe(Segment s) {
        return describe(s.path(), s.handle(), s.facts(), s.control());
    }

    private static SegmentInfo describe(Path path, ArrayHandle handle, SegmentFacts f, MemorySegment control) {
        List<SegmentInfo.Participant> attached = new ArrayList<>();
        for (ControlBlock.Slot s : ControlBlock.attached(control)) {
            attached.add(new SegmentInfo.Participant(s.pid(), s.start(), Proc.isAlive(s.pid(), s.start())));
        }
        SegmentInfo.Participant creator = new SegmentInfo.Participant(f.creatorPid(), f.creatorStart(),
                Proc.isAlive(f.creatorPid(), f.creatorStart()));
        return new SegmentInfo(path, handle, f.dtype(), f.shape(), f.dataLength(), f.id(), creator, attached,
                f.persistent(), f.backend(), Instant.ofEpochMilli(f.createdMillis()));
    }

    private static Set<OpenOption> readOptions(LinkOption... links) {
        Set<OpenOption> options = new HashSet<>(List.of(links));
        options.add(StandardOpenOption.READ);
        return options;
    }

    private static void readFully(FileChannel ch, MemorySegment into, long position) throws IOException {
        var buf = into.asByteBuffer();
        while (buf.hasRemaining()) {
            if (ch.read(buf, position + buf.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + buf.position()));
            }
        }
    }
}
