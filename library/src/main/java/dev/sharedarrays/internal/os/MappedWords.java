package dev.sharedarrays.internal.os;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Atomic read-modify-writes of words in a mapped file. Why a class of its own: when another
 * process truncates the file under the mapping, the page faults (SIGBUS). HotSpot turns the
 * fault of a load or store into an {@link InternalError} in interpreted and compiled code alike,
 * and of a compare-and-set or get-and-add in compiled code, but the interpreter runs those in
 * the VM unguarded (Unsafe_CompareAndSetLong and kin): a fault there killed the JVM. That
 * happened when a caller was deoptimised after a truncation was found and released its lock in
 * the interpreter. So: (1) each operation loads its word first and returns through a call, whose
 * return delivers the load's fault before the atomic runs (compiled, the call is inlined away);
 * (2) the class compiles its methods when it loads, so that interpreted callers (after a
 * deoptimisation) call compiled atomics. What is left: a truncation that lands in the few
 * microseconds between the load and the atomic while this class is still interpreted (the first
 * milliseconds of a process, or a JVM run with -Xint).
 */
public final class MappedWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** Calls of each method at class load: past the JIT's thresholds for a compiled version of its own. */
    private static final int WARM_CALLS = 400;

    static {
        MemorySegment word = java.lang.foreign.Arena.global().allocate(8, 8);
        for (int i = 0; i < WARM_CALLS; i++) {
            cas(word, 0, 0, 0);
            casLoaded(word, 0, 0, 0);
            casInt(word, 0, 0, 0);
            getAndAddIntSamePage(word, 0, 0);
            getAndAdd(word, 0, 0);
            getAndAddInt(word, 0, 0);
            getAndSet(word, 0, 0);
            getAndSetInt(word, 0, 0);
        }
    }

    private MappedWords() {
    }

    /** Nothing: its return, interpreted, delivers the fault of a load before it. */
    private static void delivered() {
    }

    public static boolean cas(MemorySegment m, long off, long expected, long value) {
        long seen = (long) LONG.getVolatile(m, off);
        delivered();
        return seen == expected && (boolean) LONG.compareAndSet(m, off, expected, value);
    }

    /**
     * {@link #cas} for a caller that has just loaded the word and found {@code expected}: that load
     * stands for cas's own (the fault of either is delivered here, before the atomic).
     */
    public static boolean casLoaded(MemorySegment m, long off, long expected, long value) {
        delivered();
        return (boolean) LONG.compareAndSet(m, off, expected, value);
    }

    public static boolean casInt(MemorySegment m, long off, int expected, int value) {
        int seen = (int) INT.getVolatile(m, off);
        delivered();
        return seen == expected && (boolean) INT.compareAndSet(m, off, expected, value);
    }

    public static long getAndAdd(MemorySegment m, long off, long delta) {
        LONG.getVolatile(m, off);
        delivered();
        return (long) LONG.getAndAdd(m, off, delta);
    }

    public static int getAndAddInt(MemorySegment m, long off, int delta) {
        INT.getVolatile(m, off);
        delivered();
        return (int) INT.getAndAdd(m, off, delta);
    }

    /**
     * {@link #getAndAddInt} for a caller whose operation has just accessed the same page through
     * this class: that access stands for the load (a page is truncated away whole).
     */
    public static int getAndAddIntSamePage(MemorySegment m, long off, int delta) {
        return (int) INT.getAndAdd(m, off, delta);
    }

    public static long getAndSet(MemorySegment m, long off, long value) {
        LONG.getVolatile(m, off);
        delivered();
        return (long) LONG.getAndSet(m, off, value);
    }

    public static int getAndSetInt(MemorySegment m, long off, int value) {
        INT.getVolatile(m, off);
        delivered();
        return (int) INT.getAndSet(m, off, value);
    }
}
