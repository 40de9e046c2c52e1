package dev.sharedarrays.internal.segment;

import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.sync.Occupancy;

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
 * Reads segments without attaching or changing them, for ls and inspect: a file is opened and
 * checked by {@link SegmentFile} (so a FIFO, device, link, another user's or a sparse file is
 * refused before a byte is read), then a header page and a control page are copied to the heap
 * through that descriptor and validated like attach does. Only our files whose control block
 * validates are ours; anything else in a directory is skipped, whatever its name. Names are
 * never validated here: a valid segment under a name we would not generate is reported with a
 * file handle. Removal is {@link Sweeper}'s.
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
                try (SegmentFile f = SegmentFile.open(p, false, uid -> false, "list")) {
                    out.add(read(f, null));
                } catch (RuntimeException e) {
                    // not ours, damaged or gone meanwhile: not listed, and never stops the listing
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
        try (SegmentFile f = SegmentFile.open(path, false, uid -> false, "inspect")) {
            return read(f, handleOrNull);
        }
    }

    /** Reads the segment behind an opened file (through its descriptor, not its name again). */
    static SegmentInfo read(SegmentFile f, ArrayHandle handleOrNull) {
        // /proc/self/fd/<fd> opens the very file f has open, whatever its name names now
        return read(Path.of("/proc/self/fd/" + f.fd()), f.path(), handleOrNull);
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
            MemorySegment head = a.allocate(Math.min(Occupancy.HEAD_BYTES, f.dataLength()), 8);
            readFully(ch, head, SegmentDescriptor.DATA_OFFSET);
            String name = path.getFileName().toString();
            // a name we would not generate has no shm handle; the file handle of its path attaches it
            ArrayHandle handle = handleOrNull != null ? handleOrNull
                    : f.backend() == Backend.FILE || !Names.isValid(name) ? ArrayHandle.file(path, OptionalLong.of(f.id()))
                    : ArrayHandle.shm(name, OptionalLong.of(f.id()));
            return describe(path, handle, f, head, control);
        } catch (NoSuchFileException e) {
            throw new SegmentNotFoundException(where + " does not exist");
        } catch (IOException e) {
            throw new InvalidSegmentException("cannot read " + where + ": " + e);
        }
    }

    /** What an open segment of this process says, read from its mapping; path is null when it has none. */
    public static SegmentInfo describe(Segment s) {
        MemorySegment data = s.data();
        return describe(s.path(), s.handle(), s.facts(), data.asSlice(0, Math.min(Occupancy.HEAD_BYTES, data.byteSize())),
                s.control());
    }

    private static SegmentInfo describe(Path path, ArrayHandle handle, SegmentFacts f, MemorySegment head, MemorySegment control) {
        List<SegmentInfo.Participant> attached = new ArrayList<>();
        for (ControlBlock.Slot s : ControlBlock.attached(control)) {
            attached.add(new SegmentInfo.Participant(s.pid(), s.start(), Proc.isAlive(s.pid(), s.start())));
        }
        SegmentInfo.Participant creator = new SegmentInfo.Participant(f.creatorPid(), f.creatorStart(),
                Proc.isAlive(f.creatorPid(), f.creatorStart()));
        long[] fill = Occupancy.of(f.dtype(), f.shape(), head, control);
        return new SegmentInfo(path, handle, f.dtype(), f.shape(), f.dataLength(), f.id(), creator, attached,
                f.lifetime(), f.backend(), Instant.ofEpochMilli(f.createdMillis()), SegmentInfo.Kind.values()[(int) fill[0]],
                fill[1], fill[2]);
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
