package dev.sharedarrays.internal.segment;

import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.SegmentNotFoundException;
import dev.sharedarrays.internal.os.FileStat;
import dev.sharedarrays.internal.os.Libc;
import java.nio.file.Path;
import java.util.function.IntPredicate;

/**
 * A file opened to be used as a segment (attach, inspect, sweep, rm), and checked before a byte
 * of it is read: opened with O_NOFOLLOW|O_NONBLOCK (a symbolic link is refused, a FIFO cannot
 * block), then fstat'ed: only a regular file of a trusted owner, fully allocated (a sparse
 * file's holes would be a SIGBUS once mapped), passes. Every refusal names the path and why.
 *
 * <p>The descriptor carries the kernel-held liveness of the segment: {@link #lockShared} for
 * as long as this process uses it, {@link #tryLockExclusive} to prove that no process does.
 * Not thread-safe; closing releases the lock.
 */
public final class SegmentFile implements AutoCloseable {
    private static final long LOCK_WAIT_NANOS = 2_000_000_000L;

    private final Path path;
    private final FileStat stat;
    private int fd;

    private SegmentFile(Path path, int fd, FileStat stat) {
        this.path = path;
        this.fd = fd;
        this.stat = stat;
    }

    /**
     * Opens and checks path.
     *
     * @param readWrite   O_RDWR (attach) rather than O_RDONLY (inspect, sweep, rm)
     * @param trustedUid  which owners are accepted besides this process's effective uid
     * @param verb        what the caller does, for messages: "attach", "inspect", ...
     * @throws SegmentNotFoundException if nothing is at path, or nothing can be (a path or name
     *         longer than the kernel takes, a part of the path that is not a directory)
     * @throws InvalidSegmentException if what is there is not a regular, trusted, fully
     *         allocated file
     */
    public static SegmentFile open(Path path, boolean readWrite, IntPredicate trustedUid, String verb) {
        return open(path, readWrite, verb, s -> check(s, path.toString(), trustedUid, verb));
    }

    /**
     * Opens path read-only and checks only that it is a regular file of this user: for a
     * create's temporary file, which may be in any state its creator left it in.
     *
     * @throws SegmentNotFoundException if nothing is at path
     * @throws InvalidSegmentException if what is there is not a regular file of this user
     */
    static SegmentFile openOwn(Path path, String verb) {
        return open(path, false, verb, s -> {
            if (!s.isRegular() || s.uid() != Libc.geteuid()) {
                throw refused(verb, path.toString(), "is " + s.kind() + " of uid " + s.uid() + ", not a file of this user");
            }
        });
    }

    private static SegmentFile open(Path path, boolean readWrite, String verb, java.util.function.Consumer<FileStat> checks) {
        String p = path.toString();
        int fd = Libc.open(p, (readWrite ? Libc.O_RDWR : Libc.O_RDONLY) | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        if (fd < 0) {
            int errno = Libc.errno();
            throw switch (errno) {
                case Libc.ENOENT -> new SegmentNotFoundException("cannot " + verb + " " + p + ": it does not exist");
                // no file can be there: a name too long for the file system, or a file where a directory should be
                case Libc.ENAMETOOLONG -> new SegmentNotFoundException("cannot " + verb + " " + p + ": no file can have this path ("
                        + "the kernel refuses it as too long: a path has at most 4095 bytes, a name in it at most 255)");
                case Libc.ENOTDIR -> new SegmentNotFoundException("cannot " + verb + " " + p + ": it does not exist (a part of the path"
                        + " before its last name is not a directory)");
                case Libc.EROFS -> refused(verb, p, "is on a read-only file system; segments are written in place");
                case Libc.ETXTBSY -> refused(verb, p, "is a program being run; segments are regular files of data");
                case Libc.ENODEV -> refused(verb, p, "is a device without a driver; segments are regular files");
                case Libc.ELOOP -> refused(verb, p, "is a symbolic link; segments are regular files");
                case Libc.EISDIR -> refused(verb, p, "is a directory; segments are regular files");
                case Libc.ENXIO -> refused(verb, p, "is a socket or a device without a reader; segments are regular files");
                case Libc.EACCES, Libc.EPERM -> refused(verb, p, "cannot be opened " + (readWrite ? "for reading and writing" : "for reading")
                        + " by this user (permission denied)");
                default -> Libc.failure("open", p, errno);
            };
        }
        try {
            FileStat s = Libc.fstat(fd, p);
            checks.accept(s);
            return new SegmentFile(path, fd, s);
        } catch (RuntimeException | Error e) {
            Libc.close(fd);
            throw e;
        }
    }

    /** The checks of {@link #open} on a stat: regular, trusted owner, fully allocated. */
    public static void check(FileStat s, String p, IntPredicate trustedUid, String verb) {
        if (!s.isRegular()) {
            throw refused(verb, p, "is " + s.kind() + "; segments are regular files");
        }
        int me = Libc.geteuid();
        if (s.uid() != me && !trustedUid.test(s.uid())) {
            throw refused(verb, p, "belongs to uid " + s.uid() + ", not to this user (uid " + me
                    + "); another user's file is not trusted unless AttachOptions.trustUid(" + s.uid() + ") says so");
        }
        if (!s.fullyAllocated()) {
            throw refused(verb, p, "is sparse: " + s.blocks() * 512 + " of its " + s.size()
                    + " bytes are allocated, and shared-arrays reserves every byte at create, so it is not a segment"
                    + " (mapping its holes would crash the process with SIGBUS)");
        }
    }

    private static InvalidSegmentException refused(String verb, String p, String why) {
        return new InvalidSegmentException("cannot " + verb + " " + p + ": it " + why);
    }

    public Path path() {
        return path;
    }

    public int fd() {
        return fd;
    }

    public FileStat stat() {
        return stat;
    }

    /**
     * Takes flock(LOCK_SH), held until close, then checks that path still names this file and
     * that the file still has a link: a file removed (and perhaps re-created) between open and
     * lock is not the segment the caller asked for.
     *
     * @throws SegmentNotFoundException if path no longer names this file
     */
    public void lockShared(String verb) {
        lockShared(fd, path.toString(), verb);
        FileStat now = Libc.fstat(fd, path.toString());
        if (now.nlink() == 0 || !now.isNamedBy(path.toString())) {
            throw new SegmentNotFoundException("cannot " + verb + " " + path + ": it was removed meanwhile");
        }
    }

    /**
     * flock(LOCK_SH) on fd, waiting at most LOCK_WAIT_NANOS: a remover holds LOCK_EX for a moment,
     * and one that holds it for long (a process that locks its own file, a memfd it passed) is not
     * waited for, so no attach blocks without end.
     *
     * @throws InvalidSegmentException if another process held LOCK_EX all that time
     */
    public static void lockShared(int fd, String where, String verb) {
        long deadline = System.nanoTime() + LOCK_WAIT_NANOS;
        int err;
        while ((err = Libc.flock(fd, Libc.LOCK_SH | Libc.LOCK_NB)) == Libc.EWOULDBLOCK && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        if (err == Libc.EWOULDBLOCK) {
            throw new InvalidSegmentException("cannot " + verb + " " + where + ": another process has held it exclusively (flock LOCK_EX) for "
                    + LOCK_WAIT_NANOS / 1_000_000 + " ms; only a remover should, and only for a moment");
        }
        if (err != 0) {
            throw Libc.failure("flock(LOCK_SH)", where, err);
        }
    }

    /** True if flock(LOCK_EX|LOCK_NB) succeeds: no other process holds the file. */
    public boolean tryLockExclusive() {
        int err = Libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB);
        if (err == Libc.EWOULDBLOCK) {
            return false;
        }
        if (err != 0) {
            throw Libc.failure("flock(LOCK_EX|LOCK_NB)", path.toString(), err);
        }
        return true;
    }

    /** True if path still names the file this descriptor has open. */
    public boolean stillNamed() {
        return stat.isNamedBy(path.toString());
    }

    /** Hands the descriptor over (to a {@link Segment} that keeps it); close then does nothing. */
    public int release() {
        int d = fd;
        fd = -1;
        return d;
    }

    @Override
    public void close() {
        if (fd >= 0) {
            Libc.close(fd);
            fd = -1;
        }
    }
}
