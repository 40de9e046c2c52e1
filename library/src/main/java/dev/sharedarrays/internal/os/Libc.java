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
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_NONBLOCK = 04000;
    public static final int O_NOFOLLOW = 0400000;
    public static final int O_CLOEXEC = 02000000;

    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MS_SYNC = 4;
    public static final int SEEK_END = 2;

    public static final int MFD_CLOEXEC = 1;
    public static final int MFD_ALLOW_SEALING = 2;
    public static final int F_ADD_SEALS = 1033;
    public static final int F_GET_SEALS = 1034;
    public static final int F_SEAL_SEAL = 1;
    public static final int F_SEAL_SHRINK = 2;
    public static final int F_SEAL_GROW = 4;

    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EEXIST = 17;
    public static final int ENOSPC = 28;
    public static final int EFBIG = 27;
    public static final int ELOOP = 40;
    public static final int ETIMEDOUT = 110;

    /** x86_64 and aarch64 number futex differently. */
    private static final long SYS_FUTEX = "aarch64".equals(System.getProperty("os.arch")) ? 98 : 202;
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
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
    }

    private static final class Munmap {
        static final MethodHandle H = errnoCall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), -1);
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

    private static final class Fcntl {
        static final MethodHandle H = errnoCall("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), 2);
    }

    private static final class Syscall {
        // long syscall(long number, ...): every variadic argument passed as a full 64-bit word
        static final MethodHandle H = errnoCall("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG), 1);
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

    /** The C library's text for an errno value, such as "No such file or directory". */
    public static String strerror(int errno) {
        try {
            MemorySegment p = (MemorySegment) Strerror.H.invokeExact(errno);
            return p.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** An exception for a failed call: {@code open("/dev/shm/x") failed: errno 2 (No such file or directory)}. */
    public static NativeCallException failure(String call, String subject, int errno) {
        return new NativeCallException(call, errno, call + "(" + subject + ") failed: errno " + errno
                + " (" + strerror(errno) + ")");
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

    /** open(2); returns the fd or -1 with {@link #errno()} set. */
    public static int open(String path, int flags, int mode) {
        try {
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
                throw failure("mmap", subject + ", " + size + " bytes", errno());
            }
            return r.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void munmap(long address, long size) {
        try {
            int r = (int) Munmap.H.invokeExact(state(), MemorySegment.ofAddress(address), size);
            if (r != 0) {
                throw failure("munmap", "0x" + Long.toHexString(address) + ", " + size + " bytes", errno());
            }
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

    private static final ThreadLocal<MemorySegment> TIMESPEC =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    /**
     * FUTEX_WAIT on the shared (not process-private) 32-bit word at {@code address}: sleeps while
     * it holds {@code expected}, at most {@code timeoutNanos}. A raw address, not a segment: the
     * kernel reports an unmapped word as EFAULT instead of faulting, and an arena is not pinned
     * while a thread sleeps.
     *
     * @return 0 if woken, else the errno: EAGAIN (the word differed), ETIMEDOUT or EINTR
     */
    public static int futexWait(long address, int expected, long timeoutNanos) {
        MemorySegment ts = TIMESPEC.get();
        ts.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        ts.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        try {
            long r = (long) Syscall.H.invokeExact(state(), SYS_FUTEX, address, FUTEX_WAIT,
                    (long) expected & 0xFFFF_FFFFL, ts, 0L, 0L);
            if (r == 0) {
                return 0;
            }
            int e = errno();
            if (e != EAGAIN && e != ETIMEDOUT && e != EINTR) {
                throw failure("futex", "FUTEX_WAIT at 0x" + Long.toHexString(address), e);
            }
            return e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** FUTEX_WAKE: wakes up to {@code count} waiters on the shared word at {@code address}. */
    public static void futexWake(long address, int count) {
        try {
            long r = (long) Syscall.H.invokeExact(state(), SYS_FUTEX, address, FUTEX_WAKE, (long) count,
                    MemorySegment.NULL, 0L, 0L);
            if (r < 0) {
                throw failure("futex", "FUTEX_WAKE at 0x" + Long.toHexString(address), errno());
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
