package dev.sharedarrays.internal.os;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Atomic read-modify-writes of words in a mapped file, each after a volatile load of the same
 * word. Why the load: when another process truncates the file under the mapping, the page
 * faults (SIGBUS). HotSpot turns a fault of a load or store into an {@link InternalError} in
 * interpreted and compiled code alike, and of a compare-and-set in compiled code, but its
 * interpreter's compare-and-set and get-and-add (Unsafe_CompareAndSetLong and kin) run
 * unguarded in the VM: a fault there killed the JVM. That happened right after a truncation
 * was found, when the exception path had been deoptimised and a {@code finally} released a
 * lock in the interpreter. The load faults first and raises the InternalError the callers turn
 * into a SegmentTruncatedException; what is left is a truncation landing between the two
 * instructions of an interpreted call. Costs a load of a line the atomic brings in anyway.
 */
public final class MappedWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private MappedWords() {
    }

    public static boolean cas(MemorySegment m, long off, long expected, long value) {
        return (long) LONG.getVolatile(m, off) == expected && (boolean) LONG.compareAndSet(m, off, expected, value);
    }

    public static boolean casInt(MemorySegment m, long off, int expected, int value) {
        return (int) INT.getVolatile(m, off) == expected && (boolean) INT.compareAndSet(m, off, expected, value);
    }

    public static long getAndAdd(MemorySegment m, long off, long delta) {
        LONG.getVolatile(m, off);
        return (long) LONG.getAndAdd(m, off, delta);
    }

    public static int getAndAddInt(MemorySegment m, long off, int delta) {
        INT.getVolatile(m, off);
        return (int) INT.getAndAdd(m, off, delta);
    }

    public static long getAndSet(MemorySegment m, long off, long value) {
        LONG.getVolatile(m, off);
        return (long) LONG.getAndSet(m, off, value);
    }

    public static int getAndSetInt(MemorySegment m, long off, int value) {
        INT.getVolatile(m, off);
        return (int) INT.getAndSet(m, off, value);
    }
}
