package dev.sharedarrays.internal.array;

import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.MappedWords;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Sequentially consistent element operations on I64 and I32 arrays (volatile accesses in the
 * Java memory model, locked instructions on x86-64), at a byte offset into the data.
 */
public final class Atomics {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private Atomics() {
    }

    /**
     * Checks that t has atomics and that value fits it.
     *
     * @throws DTypeMismatchException if {@code t != I64 && t != I32}
     * @throws IllegalArgumentException if {@code t == I32} and value is out of int range
     */
    public static void check(ElementType t, long value, String what, Object dtype) {
        if (t != ElementType.I64 && t != ElementType.I32) {
            throw new DTypeMismatchException(what + " needs an I64 or I32 array, this one holds " + dtype);
        }
        if (t == ElementType.I32 && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(what + ": " + value + " is out of range for I32 ("
                    + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")");
        }
    }

    public static boolean compareAndSet(ElementType t, MemorySegment d, long off, long expected, long value) {
        return t == ElementType.I64 ? MappedWords.cas(d, off, expected, value)
                : MappedWords.casInt(d, off, (int) expected, (int) value);
    }

    public static long getAndAdd(ElementType t, MemorySegment d, long off, long delta) {
        return t == ElementType.I64 ? MappedWords.getAndAdd(d, off, delta) : MappedWords.getAndAddInt(d, off, (int) delta);
    }

    public static long getAndSet(ElementType t, MemorySegment d, long off, long value) {
        return t == ElementType.I64 ? MappedWords.getAndSet(d, off, value) : MappedWords.getAndSetInt(d, off, (int) value);
    }

    public static long getVolatile(ElementType t, MemorySegment d, long off) {
        return t == ElementType.I64 ? (long) LONG.getVolatile(d, off) : (int) INT.getVolatile(d, off);
    }

    public static void setVolatile(ElementType t, MemorySegment d, long off, long value) {
        if (t == ElementType.I64) {
            LONG.setVolatile(d, off, value);
        } else {
            INT.setVolatile(d, off, (int) value);
        }
    }
}
