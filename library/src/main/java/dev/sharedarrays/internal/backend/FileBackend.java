package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.SegmentScan;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrayException;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * Arrays as files: at the path the options give, else by name in {@code <java.io.tmpdir>/sharedarrays},
 * a directory private to the user: created with mode 0700, and refused if it belongs to another
 * user or others may write to it (they could replace the files in it). Other processes attach
 * by path.
 */
final class FileBackend implements SegmentBackend<ArrayHandle.File> {

    /** Where file-backed arrays without a path go. */
    static Path defaultDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir"), "sharedarrays");
    }

    @Override
    public Segment create(SegmentFacts facts, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data) {
        Path target;
        if (options.file() != null) {
            target = options.file().toAbsolutePath().normalize();
        } else {
            Path dir = defaultDirectory();
            try {
                ensurePrivateDir(dir);
            } catch (IOException e) {
                throw new SharedArrayException("cannot create directory " + dir + " for file-backed arrays: " + e, e);
            }
            String unsafe = unsafeDirectory(dir);
            if (unsafe != null) {
                throw new SharedArrayException("cannot create a file-backed array in " + dir + ": " + unsafe);
            }
            target = dir.resolve(Names.validate(Names.orGenerated(options.name())));
        }
        return SegmentFiles.createExclusive(target, facts, data,
                "free space in " + target.getParent() + " or choose another directory",
                id -> ArrayHandle.file(target, id));
    }

    private static void ensurePrivateDir(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // made concurrently: checked like any existing directory
            }
        }
    }

    /**
     * Why dir may not hold this user's arrays, or null if it is this user's and only theirs: a
     * directory another user owns or may write to lets that user swap a file under a name.
     */
    static String unsafeDirectory(Path dir) {
        FileStat s = Libc.lstat(dir.toString());
        if (s == null) {
            return null; // nothing there: nothing to attach, and create makes it
        }
        int me = Libc.geteuid();
        String fix = "; remove it (as its owner) so that it is created again with mode 0700, run with "
                + "-Djava.io.tmpdir=<a directory of yours>, or give the array a path (CreateOptions.file)";
        if (!"a directory".equals(s.kind())) {
            return "the default directory of file-backed arrays " + dir + " is " + s.kind() + ", not a directory" + fix;
        }
        if (s.uid() != me) {
            return "the default directory of file-backed arrays " + dir + " belongs to uid " + s.uid() + " (mode 0"
                    + Integer.toOctalString(s.permissions()) + "), not to this user (uid " + me
                    + "): that user could replace the arrays in it" + fix;
        }
        if ((s.permissions() & 022) != 0) {
            return "the default directory of file-backed arrays " + dir + " has mode 0" + Integer.toOctalString(s.permissions())
                    + ": other users may write to it and could replace the arrays in it" + fix + " (or chmod 700 it)";
        }
        return null;
    }

    @Override
    public Segment attach(ArrayHandle.File h, AttachOptions options) {
        Path dir = defaultDirectory();
        if (dir.equals(h.path().getParent())) {
            String unsafe = unsafeDirectory(dir);
            if (unsafe != null) {
                throw new InvalidSegmentException("cannot attach " + h + ": " + unsafe);
            }
        }
        return SegmentFiles.attachFile(h.path(), h, options, id -> ArrayHandle.file(h.path(), id));
    }

    @Override
    public SegmentInfo inspect(ArrayHandle.File h) {
        return SegmentScan.read(h.path(), null);
    }

    @Override
    public Optional<Path> file(ArrayHandle.File h) {
        return Optional.of(h.path());
    }

    @Override
    public Optional<Path> scanDirectory() {
        Path dir = defaultDirectory();
        // a directory others may write to is not swept: there a name can be swapped under us
        return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && unsafeDirectory(dir) == null ? Optional.of(dir) : Optional.empty();
    }
}
