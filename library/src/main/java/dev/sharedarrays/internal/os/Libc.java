package dev.sharedarrays.internal.os;

import dev.sharedarrays.NativeCallException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The C library calls this project makes, as FFM downcalls. Every call that can fail captures
 * errno and turns a failure into a {@link NativeCallException} naming the call, its subject
 * and errno. Linux x86_64/aarch64 (LP64) only.
 */
public final class Libc {
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_NONBLOCK = 04000;
    public static final int O_NOFOLLOW = 0400000;
    public static final int O_CLOEXEC = 02000000;

    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_PRIVATE = 2;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MADV_HUGEPAGE = 14;
    public static final int MADV_POPULATE_WRITE = 23;
    public static final int MS_SYNC = 4;
    public static final int SEEK_END = 2;

    public static final int MFD_CLOEXEC = 1;
    public static final int MFD_ALLOW_SEALING = 2;
    public static final int F_ADD_SEALS = 1033;
    public static final int F_GET_SEALS = 1034;
    public static final int F_SEAL_SEAL = 1;
    public static final int F_SEAL_SHRINK = 2;
    public static final int F_SEAL_GROW = 4;

    public static final int LOCK_SH = 1;
    public static final int LOCK_EX = 2;
    public static final int LOCK_NB = 4;
    public static final int LOCK_UN = 8;

    private static final int AT_FDCWD = -100;
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_BASIC_STATS = 0x7ff;
    private static final long STATX_SIZE = 256;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EWOULDBLOCK = 11;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EEXIST = 17;
    public static final int ENOSPC = 28;
    public static final int EFBIG = 27;
    public static final int ELOOP = 40;
    public static final int EIO = 5;
    public static final int ENOTDIR = 20;
    public static final int ENFILE = 23;
    public static final int EROFS = 30;
    public static final int EPIPE = 32;
    public static final int ENAMETOOLONG = 36;
    public static final int ENODEV = 19;
    public static final int ETXTBSY = 26;
    public static final int ETIMEDOUT = 110;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    /** Loaded now: at vm.max_map_count, loading it for the first failure could need memory the JVM cannot map. */
    private static final Class<?> FAILURE_TYPE = NativeCallException.class;
    /** One errno buffer per thread, so that calls need no allocation. */
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));



    // one holder class per call: a JVM links only the calls it makes (linking costs milliseconds at start-up)
    private static final class Open {
        static final MethodHandle H = errnoCall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    }

    private static final class Close {
        static final MethodHandle H = errnoCall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    }

    private static final class Lseek {
        static final MethodHandle H = errnoCall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), -1);
    }

    private static final class Ftruncate {
        static final MethodHandle H = errnoCall("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), -1);
    }

    private static final class PosixFallocate {
        static final MethodHandle H = plainCall("posix_fallocate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }

    private static final class Mmap {
        static final MethodHandle H = errnoCall("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), -1);
        // linked with mmap: at vm.max_map_count, closing arrays is the way out, and linking needs new mappings
        static final MethodHandle UNMAP = errnoCall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), -1);
    }

    private static final class Madvise {
        static final MethodHandle H = plainCall("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    private static final class Msync {
        static final MethodHandle H = errnoCall("msync", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), -1);
    }

    private static final class Unlink {
        static final MethodHandle H = errnoCall("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS), -1);
    }

    private static final class Link {
        static final MethodHandle H = errnoCall("link", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), -1);
    }

    private static final class MemfdCreate {
        static final MethodHandle H = errnoCall("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), -1);
    }

    private static final class Pread {
        static final MethodHandle H = errnoCall("pread", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), -1);
    }

    private static final class Pwrite {
        static final MethodHandle H = errnoCall("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), -1);
    }

    private static final class Fcntl {
        static final MethodHandle H = errnoCall("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), 2);
    }

    private static final class Flock {
        static final MethodHandle H = errnoCall("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    }

    private static final class Statx {
        static final MethodHandle H = errnoCall("statx", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), -1);
    }

    private static final class Kill {
        static final MethodHandle H = errnoCall("kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    }

    private static final class Geteuid {
        static final MethodHandle H = plainCall("geteuid", FunctionDescriptor.of(JAVA_INT));
    }

    private static final class Fchmod {
        static final MethodHandle H = errnoCall("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    }

    private static final class Chmod {
        static final MethodHandle H = errnoCall("chmod", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), -1);
    }

    private static final class Strerror {
        static final MethodHandle H = plainCall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private Libc() {
    }

    public static MethodHandle errnoCall(String name, FunctionDescriptor fd, int firstVariadic) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return firstVariadic >= 0
                ? LINKER.downcallHandle(sym, fd, CAPTURE_ERRNO, Linker.Option.firstVariadicArg(firstVariadic))
                : LINKER.downcallHandle(sym, fd, CAPTURE_ERRNO);
    }

    static MethodHandle plainCall(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return LINKER.downcallHandle(sym, fd);
    }

    private static final int PATH_MAX = 4096;
    private static final ThreadLocal<MemorySegment> PATHS =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(2L * PATH_MAX));

    /** The length of s in UTF-8 bytes, without encoding it. */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3; // a surrogate pair is 4
        }
        return n;
    }

    /**
     * A NUL-terminated copy of s in this thread's scratch buffer (slot 0 or 1), valid until the
     * next call with the same slot on this thread.
     */
    static MemorySegment cString(String s, int slot) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (b.length >= PATH_MAX) {
            throw new IllegalArgumentException("path of " + b.length + " bytes is longer than PATH_MAX (" + PATH_MAX + "): " + s);
        }
        for (byte x : b) {
            if (x == 0) {
                throw new IllegalArgumentException("path contains a NUL character: " + s);
            }
        }
        MemorySegment buf = PATHS.get().asSlice((long) slot * PATH_MAX, PATH_MAX);
        MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, 0, b.length);
        buf.set(ValueLayout.JAVA_BYTE, b.length, (byte) 0);
        return buf;
    }

    /** The per-thread errno capture buffer to pass as the first argument of an errno call. */
    public static MemorySegment state() {
        return STATE.get();
    }

    /** errno captured by the last errno call on this thread. */
    public static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    /**
     * The C library's text for an errno value, such as "No such file or directory". The common
     * ones are constants here: a failure such as mmap's at vm.max_map_count must be reported
     * without linking a new downcall (which needs new native memory, and may be what failed).
     */
    public static String strerror(int errno) {
        String known = switch (errno) {
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case ENXIO -> "No such device or address";
            case EBADF -> "Bad file descriptor";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EACCES -> "Permission denied";
            case EEXIST -> "File exists";
            case ENOTDIR -> "Not a directory";
            case EISDIR -> "Is a directory";
            case EINVAL -> "Invalid argument";
            case ENFILE -> "Too many open files in system";
            case EMFILE -> "Too many open files";
            case EFBIG -> "File too large";
            case ENOSPC -> "No space left on device";
            case EROFS -> "Read-only file system";
            case ENODEV -> "No such device";
            case ETXTBSY -> "Text file busy";
            case EPIPE -> "Broken pipe";
            case ENAMETOOLONG -> "File name too long";
            case ELOOP -> "Too many levels of symbolic links";
            case ETIMEDOUT -> "Connection timed out";
            default -> null;
        };
        if (known != null) {
            return known;
        }
        try {
            MemorySegment p = (MemorySegment) Strerror.H.invokeExact(errno);
            return p.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** An exception for a failed call: {@code open("/dev/shm/x") failed: errno 2 (No such file or directory)}. */
    public static NativeCallException failure(String call, String subject, int errno) {
        // a StringBuilder, not a concatenation: see mmapFailure
        return new NativeCallException(call, errno, new StringBuilder(256).append(call).append('(').append(subject)
                .append(") failed: errno ").append(errno).append(" (").append(strerror(errno)).append(')').toString());
    }

    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /**
     * open(2); returns the fd or -1 with {@link #errno()} set. A path of PATH_MAX bytes or more
     * gets -1 and ENAMETOOLONG, as the kernel would answer, so that callers map it with the rest.
     */
    public static int open(String path, int flags, int mode) {
        try {
            if (utf8Length(path) >= PATH_MAX) {
                ERRNO.set(state(), 0L, ENAMETOOLONG);
                return -1;
            }
            return (int) Open.H.invokeExact(state(), cString(path, 0), flags, mode);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void close(int fd) {
        try {
            int r = (int) Close.H.invokeExact(state(), fd);
            if (r != 0 && errno() != EINTR) {
                throw failure("close", "fd " + fd, errno());
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Size of the file behind fd, by lseek(fd, 0, SEEK_END). */
    public static long fileSize(int fd, String subject) {
        try {
            long r = (long) Lseek.H.invokeExact(state(), fd, 0L, SEEK_END);
            if (r < 0) {
                throw failure("lseek", subject, errno());
            }
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void ftruncate(int fd, long size, String subject) {
        try {
            int r = (int) Ftruncate.H.invokeExact(state(), fd, size);
            if (r != 0) {
                throw failure("ftruncate", subject + ", " + size + " bytes", errno());
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** posix_fallocate(3); returns 0 or the error number (it does not set errno). */
    public static int posixFallocate(int fd, long offset, long length) {
        try {
            int r;
            do {
                r = (int) PosixFallocate.H.invokeExact(fd, offset, length);
            } while (r == EINTR);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** mmap(2) of a whole file (fd >= 0) or anonymous shared memory (fd == -1). */
    public static long mmap(long size, int prot, int flags, int fd, long offset, String subject) {
        try {
            MemorySegment r = (MemorySegment) Mmap.H.invokeExact(state(), MemorySegment.NULL, size, prot, flags, fd, offset);
            if (r.address() == -1L) {
                throw mmapFailure(subject, size, errno());
            }
            return r.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The exception of a failed mmap, built from constants and a StringBuilder only: when the
     * cause is vm.max_map_count, anything that needs a new mapping (linking a downcall, the
     * first run of a string concatenation call site) would abort the JVM instead.
     */
    private static NativeCallException mmapFailure(String subject, long size, int errno) {
        StringBuilder m = new StringBuilder(512).append("mmap(").append(subject).append(", ").append(size)
                .append(" bytes) failed: errno ").append(errno).append(" (").append(strerror(errno)).append(')');
        if (errno == ENOMEM) {
            // the usual cause: one mapping per open array, and vm.max_map_count (65530 by default) reached
            m.append(": this process has reached vm.max_map_count (each open array is one mapping) or its address-space")
                    .append(" limit (ulimit -v); close arrays it no longer uses, or raise vm.max_map_count")
                    .append(" (sysctl -w vm.max_map_count=262144)");
        }
        return new NativeCallException("mmap", errno, m.toString());
    }

    public static void munmap(long address, long size) {
        try {
            int r = (int) Mmap.UNMAP.invokeExact(state(), MemorySegment.ofAddress(address), size);
            if (r != 0) {
                throw failure("munmap", "0x" + Long.toHexString(address) + ", " + size + " bytes", errno());
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** madvise(2) as a hint: 0 or -1 is returned, not thrown (an old kernel may not know the advice). */
    public static int madvise(long address, long size, int advice) {
        try {
            return (int) Madvise.H.invokeExact(MemorySegment.ofAddress(address), size, advice);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void msync(long address, long size, String subject) {
        try {
            int r = (int) Msync.H.invokeExact(state(), MemorySegment.ofAddress(address), size, MS_SYNC);
            if (r != 0) {
                throw failure("msync", subject, errno());
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * pread(2) into native memory, retried on EINTR; returns the bytes read (0 at end of file)
     * or -1 with {@link #errno()} set.
     */
    public static long pread(int fd, MemorySegment into, long offset) {
        try {
            long r;
            do {
                r = (long) Pread.H.invokeExact(state(), fd, into, into.byteSize(), offset);
            } while (r < 0 && errno() == EINTR);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pwrite(2) from native memory, retried on EINTR; returns the bytes written or -1 with {@link #errno()} set. */
    public static long pwrite(int fd, MemorySegment from, long offset) {
        try {
            long r;
            do {
                r = (long) Pwrite.H.invokeExact(state(), fd, from, from.byteSize(), offset);
            } while (r < 0 && errno() == EINTR);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** unlink(2); returns 0 or the errno. */
    public static int unlink(String path) {
        try {
            int r = (int) Unlink.H.invokeExact(state(), cString(path, 0));
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** link(2); returns 0 or the errno. */
    public static int link(String from, String to) {
        try {
            int r = (int) Link.H.invokeExact(state(), cString(from, 0), cString(to, 1));
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** memfd_create(2); returns the fd or -1 with {@link #errno()} set. */
    public static int memfdCreate(String name, int flags) {
        try {
            return (int) MemfdCreate.H.invokeExact(state(), cString(name, 0), flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fcntl(2) with an int argument; returns the result or -1 with {@link #errno()} set. */
    public static int fcntl(int fd, int cmd, int arg) {
        try {
            return (int) Fcntl.H.invokeExact(state(), fd, cmd, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** flock(2); returns 0 or the errno (EWOULDBLOCK when LOCK_NB finds the lock held). */
    public static int flock(int fd, int operation) {
        try {
            int r;
            do {
                r = (int) Flock.H.invokeExact(state(), fd, operation);
            } while (r != 0 && errno() == EINTR);
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final ThreadLocal<MemorySegment> STATX =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(STATX_SIZE, 8));

    /**
     * statx(2) of an open descriptor.
     *
     * @throws NativeCallException naming {@code subject} if the call fails
     */
    public static FileStat fstat(int fd, String subject) {
        FileStat s = statx(fd, "", AT_EMPTY_PATH);
        if (s == null) {
            throw failure("statx", subject, errno());
        }
        return s;
    }

    /** statx(2) of a path, following symbolic links; null with {@link #errno()} set if it fails. */
    public static FileStat stat(String path) {
        return statx(AT_FDCWD, path, 0);
    }

    /** statx(2) of a path, not following a final symbolic link; null with {@link #errno()} set if it fails. */
    public static FileStat lstat(String path) {
        return statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW);
    }

    private static FileStat statx(int dirfd, String path, int flags) {
        MemorySegment b = STATX.get();
        try {
            int r = (int) Statx.H.invokeExact(state(), dirfd, cString(path, 0), flags, STATX_BASIC_STATS, b);
            if (r != 0) {
                return null;
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        // struct statx: the same layout on every architecture
        long dev = ((long) b.get(JAVA_INT, 136) << 32) | (b.get(JAVA_INT, 140) & 0xFFFF_FFFFL);
        return new FileStat(dev, b.get(JAVA_LONG, 32), Short.toUnsignedInt(b.get(ValueLayout.JAVA_SHORT, 28)),
                b.get(JAVA_INT, 20), Integer.toUnsignedLong(b.get(JAVA_INT, 16)), b.get(JAVA_LONG, 40), b.get(JAVA_LONG, 48));
    }

    /** kill(2); with signal 0 it only asks whether pid exists: returns 0 or the errno (ESRCH: no such process). */
    public static int kill(long pid, int signal) {
        try {
            int r = (int) Kill.H.invokeExact(state(), (int) pid, signal);
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The effective user id of this process. */
    public static int geteuid() {
        try {
            return (int) Geteuid.H.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** fchmod(2); returns 0 or the errno. */
    public static int fchmod(int fd, int mode) {
        try {
            int r = (int) Fchmod.H.invokeExact(state(), fd, mode);
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** chmod(2); returns 0 or the errno. */
    public static int chmod(String path, int mode) {
        try {
            int r = (int) Chmod.H.invokeExact(state(), cString(path, 0), mode);
            return r == 0 ? 0 : errno();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
