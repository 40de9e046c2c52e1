package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Env;
import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.SegmentScan;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.AttachOptions;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrayException;
import java.lang.foreign.MemorySegment;
import java.util.function.BiConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Arrays as named files in the shm directory ({@code SHARED_ARRAYS_DIR}, default /dev/shm). */
public final class ShmBackend implements SegmentBackend<ArrayHandle.Shm> {
    public static final String DIR_ENV = "SHARED_ARRAYS_DIR";
    private static final String DEFAULT_DIR = "/dev/shm";

    /** The environment of a process does not change, so a directory found once is kept. */
    private static volatile Path directory;

    ShmBackend() {
    }

    /**
     * The shm directory.
     *
     * @throws IllegalStateException if it is not a directory, saying which setting to change
     */
    public static Path directory() {
        Path cached = directory;
        if (cached != null) {
            return cached;
        }
        String v = Env.get(DIR_ENV);
        Path dir = Path.of(v == null ? DEFAULT_DIR : v);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException((v == null ? DEFAULT_DIR : DIR_ENV + "=" + v) + " is not a directory; "
                    + (v == null ? "set " + DIR_ENV + " to a tmpfs directory" : "point it at an existing directory"));
        }
        directory = dir;
        return dir;
    }

    /**
     * Why other users could delete or rename this user's arrays in dir, or null if they cannot:
     * a directory others may write to without the sticky bit (/dev/shm is 1777) lets them.
     * Symbolic links are followed (/dev/shm is a link to /run/shm on some systems).
     */
    public static String othersMayRemove(Path dir) {
        FileStat s = Libc.stat(dir.toString());
        if (s == null || (s.permissions() & 0002) == 0 || (s.permissions() & 01000) != 0) {
            return null;
        }
        return dir + " has mode 0" + Integer.toOctalString(s.permissions()) + ": every user may write to it and, without the"
                + " sticky bit, delete or rename the arrays of others in it";
    }

    /** What to do about {@link #othersMayRemove}. */
    public static String othersMayRemoveFix(Path dir) {
        return "chmod +t " + dir + " (mode 1777, as /dev/shm has), or point " + DIR_ENV + " at a directory of yours with mode 0700";
    }

    @Override
    public Segment create(SegmentFacts facts, CreateOptions options, BiConsumer<MemorySegment, MemorySegment> data) {
        Path dir = directory();
        String unsafe = othersMayRemove(dir);
        if (unsafe != null) {
            throw new SharedArrayException("cannot create a shm array in " + dir + ": " + unsafe + "; " + othersMayRemoveFix(dir));
        }
        Path target = dir.resolve(Names.validate(Names.orGenerated(options.name())));
        return SegmentFiles.createExclusive(target, facts, data,
                "set " + BackendSelection.BACKEND_ENV + "=memfd or enlarge " + dir,
                id -> ArrayHandle.shm(target.getFileName().toString(), id));
    }

    @Override
    public Segment attach(ArrayHandle.Shm h, AttachOptions options) {
        return SegmentFiles.attachFile(directory().resolve(h.name()), h, options, id -> ArrayHandle.shm(h.name(), id));
    }

    @Override
    public SegmentInfo inspect(ArrayHandle.Shm h) {
        return SegmentScan.read(directory().resolve(h.name()), null);
    }

    @Override
    public Optional<Path> file(ArrayHandle.Shm h) {
        return Optional.of(directory().resolve(h.name()));
    }

    @Override
    public Optional<Path> scanDirectory() {
        return shmScanDirectory();
    }

    /** The shm directory if there is one now. */
    static Optional<Path> shmScanDirectory() {
        try {
            return Optional.of(directory());
        } catch (IllegalStateException e) {
            return Optional.empty(); // no shm directory: nothing there to list
        }
    }
}
