package dev.sharedarrays.internal.os;

import static dev.sharedarrays.internal.os.Libc.EAGAIN;
import static dev.sharedarrays.internal.os.Libc.EINTR;
import static dev.sharedarrays.internal.os.Libc.ETIMEDOUT;
import static dev.sharedarrays.internal.os.Libc.errno;
import static dev.sharedarrays.internal.os.Libc.failure;
import static dev.sharedarrays.internal.os.Libc.rethrow;
import static dev.sharedarrays.internal.os.Libc.state;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** The futex(2) system call, which glibc does not wrap: through syscall(3). */
public final class FutexCalls {
    /** x86_64 and aarch64 number futex differently. */
    private static final long SYS_FUTEX = "aarch64".equals(System.getProperty("os.arch")) ? 98 : 202;
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;

    private static final class Syscall {
        // long syscall(long number, ...): every variadic argument passed as a full 64-bit word
        static final MethodHandle H = Libc.errnoCall("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG), 1);
    }

    private FutexCalls() {
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
     * @throws dev.sharedarrays.NativeCallException for any other errno: EFAULT for a word past the
     *         end of a truncated file (Segment#guard turns it into a SegmentTruncatedException)
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
