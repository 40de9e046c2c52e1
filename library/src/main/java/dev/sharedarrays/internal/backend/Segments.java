package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.segment.ControlBlock;
import dev.sharedarrays.internal.segment.Names;
import dev.sharedarrays.internal.segment.Registry;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.segment.SegmentLayout;
import dev.sharedarrays.internal.segment.SegmentMeta;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.Backend;
import dev.sharedarrays.DType;
import dev.sharedarrays.InsufficientSpaceException;
import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentExistsException;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.SharedArrayException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;

/** Creates and attaches segments for every backend. */
public final class Segments {
    /** Prefix of the temporary files a create writes before linking the final name. */
    public static final String TEMP_PREFIX = ".sa-tmp-";
    private static final RandomGenerator RANDOM = new SecureRandom();

    static {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("shared-arrays needs a little-endian machine (.npy '<' data)");
        }
    }

    private Segments() {
    }

    /** What to create. {@code name} and {@code file} may be null. */
    public record Request(DType<?> dtype, long[] shape, Backend backend, String name, Path file, boolean persistent) {
    }

    public static long[] checkShape(long[] shape, DType<?> dtype) {
        if (shape.length < 1 || shape.length > SegmentLayout.MAX_DIMS) {
            throw new IllegalArgumentException("an array has 1 to " + SegmentLayout.MAX_DIMS + " dimensions, but shape "
                    + Arrays.toString(shape) + " has " + shape.length);
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 1) {
                throw new IllegalArgumentException("shape[" + i + "] is " + shape[i] + ", every dimension must be >= 1");
            }
        }
        if (SegmentLayout.dataLength(shape, dtype.itemSize()) < 0) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " of " + dtype + " needs more than "
                    + "the limit of 1 TiB (" + SegmentLayout.MAX_DATA_BYTES + " bytes) or overflows a long");
        }
        return shape.clone();
    }

    public static Segment create(Request r) {
        long[] shape = checkShape(r.shape(), r.dtype());
        long dataLength = SegmentLayout.dataLength(shape, r.dtype().itemSize());
        SegmentMeta meta = new SegmentMeta(r.dtype(), shape, dataLength, RANDOM.nextLong(),
                Proc.selfPid(), Proc.selfStartTime(), System.currentTimeMillis(), SegmentMeta.flags(r.persistent(), r.backend()));
        return switch (r.backend()) {
            case SHM -> createFile(Backend.SHM, Config.shmDir().resolve(Names.validate(name(r))), meta, true);
            case FILE -> {
                Path target;
                if (r.file() != null) {
                    target = r.file().toAbsolutePath().normalize();
                } else {
                    Path dir = Config.defaultFileDir();
                    try {
                        ensurePrivateDir(dir);
                    } catch (IOException e) {
                        throw new SharedArrayException("cannot create directory " + dir + " for file-backed arrays: " + e, e);
                    }
                    target = dir.resolve(Names.validate(name(r)));
                }
                yield createFile(Backend.FILE, target, meta, false);
            }
            case MEMFD -> createMemfd(meta, name(r));
            case ANONYMOUS -> createAnonymous(meta);
        };
    }

    private static String name(Request r) {
        return r.name() != null ? r.name() : "sa-" + HexFormat.of().toHexDigits(RANDOM.nextLong());
    }

    private static Segment createFile(Backend backend, Path target, SegmentMeta meta, boolean shm) {
        Path dir = target.getParent();
        long size = meta.fileSize();
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new SegmentExistsException(target + " already exists; choose another name, attach to it, "
                    + "or remove it (bin/sharedarrays rm)");
        }
        long free = usableSpace(dir);
        if (free >= 0 && size > free) {
            throw noSpace(dir, size, free, shm);
        }
        Path temp = dir.resolve(TEMP_PREFIX + Proc.selfPid() + "-" + Proc.selfStartTime() + "-"
                + HexFormat.of().toHexDigits(RANDOM.nextInt()));
        int fd = Libc.open(temp.toString(), Libc.O_RDWR | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0600);
        if (fd < 0) {
            throw Libc.failure("open", temp.toString(), Libc.errno());
        }
        Arena arena = null;
        boolean linked = false;
        try {
            reserve(fd, size, dir, shm, temp.toString());
            arena = Arena.ofShared();
            MemorySegment all = map(fd, size, arena, temp.toString());
            ControlBlock.initialize(all, all.asSlice(size - SegmentLayout.CONTROL_SIZE), meta);
            int err = Libc.link(temp.toString(), target.toString());
            if (err == Libc.EEXIST) {
                throw new SegmentExistsException(target + " already exists (created concurrently); it was not touched");
            } else if (err != 0) {
                throw Libc.failure("link", temp + " -> " + target, err);
            }
            linked = true;
            Libc.unlink(temp.toString());
            Libc.close(fd);
            fd = -1;
            OptionalLong id = OptionalLong.of(meta.id());
            ArrayHandle handle = shm ? ArrayHandle.shm(target.getFileName().toString(), id) : ArrayHandle.file(target, id);
            return new Segment(backend, meta, true, arena, all, target, -1, handle, -1);
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            if (fd >= 0) {
                Libc.close(fd);
            }
            Libc.unlink(temp.toString());
            if (linked) {
                Libc.unlink(target.toString());
            }
            throw e;
        }
    }

    private static long usableSpace(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private static InsufficientSpaceException noSpace(Path dir, long size, long free, boolean shm) {
        String fix = shm
                ? "set " + Config.BACKEND_ENV + "=memfd or enlarge " + dir
                : "free space in " + dir + " or choose another directory";
        return new InsufficientSpaceException(dir + " has " + Config.bytes(free) + " free, " + Config.bytes(size)
                + " requested; " + fix, size, free);
    }

    /** Reserves the file's blocks now, so that a full file system fails here and not as SIGBUS later. */
    private static void reserve(int fd, long size, Path dir, boolean shm, String subject) {
        int err = Libc.posixFallocate(fd, 0, size);
        if (err == Libc.ENOSPC || err == Libc.EFBIG) {
            throw noSpace(dir, size, Math.max(0, usableSpace(dir)), shm);
        } else if (err != 0) {
            throw Libc.failure("posix_fallocate", subject + ", " + size + " bytes", err);
        }
    }

    private static MemorySegment map(int fd, long size, Arena arena, String subject) {
        long address = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED, fd, 0, subject);
        return MemorySegment.ofAddress(address).reinterpret(size, arena, s -> Libc.munmap(address, size));
    }

    private static Segment createMemfd(SegmentMeta meta, String name) {
        long size = meta.fileSize();
        int fd = Libc.memfdCreate(name, Libc.MFD_CLOEXEC | Libc.MFD_ALLOW_SEALING);
        if (fd < 0) {
            throw Libc.failure("memfd_create", name, Libc.errno());
        }
        Arena arena = null;
        try {
            Libc.ftruncate(fd, size, "memfd " + name);
            int err = Libc.posixFallocate(fd, 0, size);
            if (err == Libc.ENOSPC || err == Libc.ENOMEM) {
                throw new InsufficientSpaceException("cannot reserve " + Config.bytes(size) + " for memfd " + name
                        + ": posix_fallocate failed with errno " + err + " (" + Libc.strerror(err)
                        + "); free memory or raise the memory limit of this process", size, -1);
            } else if (err != 0) {
                throw Libc.failure("posix_fallocate", "memfd " + name + ", " + size + " bytes", err);
            }
            if (Libc.fcntl(fd, Libc.F_ADD_SEALS, Libc.F_SEAL_SHRINK | Libc.F_SEAL_GROW | Libc.F_SEAL_SEAL) != 0) {
                throw Libc.failure("fcntl(F_ADD_SEALS)", "memfd " + name, Libc.errno());
            }
            arena = Arena.ofShared();
            MemorySegment all = map(fd, size, arena, "memfd " + name);
            ControlBlock.initialize(all, all.asSlice(size - SegmentLayout.CONTROL_SIZE), meta);
            ArrayHandle handle = ArrayHandle.memfd(Proc.selfPid(), fd, OptionalLong.of(meta.id()));
            return new Segment(Backend.MEMFD, meta, true, arena, all, null, fd, handle, -1);
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            Libc.close(fd);
            throw e;
        }
    }

    private static Segment createAnonymous(SegmentMeta meta) {
        long size = meta.fileSize();
        Arena arena = Arena.ofShared();
        try {
            long address = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED | Libc.MAP_ANONYMOUS, -1, 0, "anonymous");
            MemorySegment all = MemorySegment.ofAddress(address).reinterpret(size, arena, s -> Libc.munmap(address, size));
            ControlBlock.initialize(all, all.asSlice(size - SegmentLayout.CONTROL_SIZE), meta);
            return new Segment(Backend.ANONYMOUS, meta, true, arena, all, null, -1,
                    ArrayHandle.anonymous(Proc.selfPid(), OptionalLong.of(meta.id())), -1);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Attaches the segment a handle names. */
    public static Segment attach(ArrayHandle h) {
        return switch (h.backend()) {
            case SHM -> attachPath(Backend.SHM, Config.shmDir().resolve(h.name()), h);
            case FILE -> attachPath(Backend.FILE, h.path(), h);
            case MEMFD -> {
                String proc = "/proc/" + h.pid() + "/fd/" + h.fd();
                int fd = Libc.open(proc, Libc.O_RDWR | Libc.O_CLOEXEC, 0);
                if (fd < 0) {
                    int errno = Libc.errno();
                    if (errno == Libc.ENOENT) {
                        throw new SegmentNotFoundException("cannot attach " + h + ": " + proc
                                + " does not exist (process " + h.pid() + " exited or closed the array)");
                    }
                    throw Libc.failure("open", proc, errno);
                }
                yield attachFd(Backend.MEMFD, fd, null, h, proc);
            }
            case ANONYMOUS -> {
                if (h.pid() != Proc.selfPid()) {
                    throw new SharedArrayException("cannot attach " + h + ": anonymous arrays live in one process (pid "
                            + h.pid() + ") and this is pid " + Proc.selfPid() + "; create the array with backend shm or memfd to share it");
                }
                Segment owner = h.id().isPresent() ? Registry.find(h.id().getAsLong()) : null;
                if (owner == null) {
                    throw new SegmentNotFoundException("cannot attach " + h + ": no open anonymous array with that id in this process");
                }
                yield owner.borrow();
            }
        };
    }

    private static Segment attachPath(Backend backend, Path path, ArrayHandle h) {
        int fd = Libc.open(path.toString(), Libc.O_RDWR | Libc.O_NOFOLLOW | Libc.O_CLOEXEC | Libc.O_NONBLOCK, 0);
        if (fd < 0) {
            int errno = Libc.errno();
            if (errno == Libc.ENOENT) {
                throw new SegmentNotFoundException("cannot attach " + h + ": " + path + " does not exist");
            }
            if (errno == Libc.ELOOP) {
                throw new InvalidSegmentException("cannot attach " + h + ": " + path + " is a symbolic link; segments are regular files");
            }
            throw Libc.failure("open", path.toString(), errno);
        }
        return attachFd(backend, fd, path, h, path.toString());
    }

    /**
     * Maps and validates the segment behind fd, which this call takes over: closed on failure, and
     * after mapping unless it is a memfd (kept to pass on).
     */
    public static Segment attachFd(Backend backend, int fd, Path path, ArrayHandle h, String where) {
        Arena arena = null;
        try {
            long size = Libc.fileSize(fd, where);
            ControlBlock.checkFileSize(size, where);
            arena = Arena.ofShared();
            MemorySegment all = map(fd, size, arena, where);
            MemorySegment control = all.asSlice(size - SegmentLayout.CONTROL_SIZE);
            SegmentMeta meta = ControlBlock.validate(all, control, size, where);
            if (h.id().isPresent() && h.id().getAsLong() != meta.id()) {
                throw new InvalidSegmentException("cannot attach " + where + ": handle " + h + " expects array id "
                        + HexFormat.of().toHexDigits(h.id().getAsLong()) + ", the segment has id "
                        + HexFormat.of().toHexDigits(meta.id()) + " (the name was reused for another array)");
            }
            int slot = ControlBlock.registerAttach(control, where);
            ArrayHandle handle;
            OptionalLong id = OptionalLong.of(meta.id());
            if (backend == Backend.MEMFD) {
                handle = ArrayHandle.memfd(Proc.selfPid(), fd, id);
            } else {
                Libc.close(fd);
                fd = -1;
                handle = backend == Backend.SHM ? ArrayHandle.shm(h.name(), id) : ArrayHandle.file(path, id);
            }
            return new Segment(backend, meta, false, arena, all, path, fd, handle, slot);
        } catch (RuntimeException | Error e) {
            if (arena != null) {
                arena.close();
            }
            if (fd >= 0) {
                Libc.close(fd);
            }
            throw e;
        }
    }

    /** Creates the directory for default file-backed arrays with mode 0700 if needed. */
    static void ensurePrivateDir(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
    }
}
