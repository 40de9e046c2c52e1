package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentFacts;
import dev.sharedarrays.internal.segment.SegmentScan;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrayException;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * Arrays as files: at the path the options give, else by name in {@code <java.io.tmpdir>/sharedarrays}
 * (created with mode 0700). Other processes attach by path.
 */
final class FileBackend implements SegmentBackend<ArrayHandle.File> {

    /** Where file-backed arrays without a path go. */
    static Path defaultDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir"), "sharedarrays");
    }

    @Override
    public Segment create(SegmentFacts facts, CreateOptions options, Consumer<MemorySegment> data) {
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
            target = dir.resolve(Names.validate(Names.orGenerated(options.name())));
        }
        return SegmentFiles.createExclusive(target, facts, data,
                "free space in " + target.getParent() + " or choose another directory",
                id -> ArrayHandle.file(target, id));
    }

    private static void ensurePrivateDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
    }

    @Override
    public Segment attach(ArrayHandle.File h) {
        return SegmentFiles.attachFile(h.path(), h, id -> ArrayHandle.file(h.path(), id));
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
        return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) ? Optional.of(dir) : Optional.empty();
    }
}
