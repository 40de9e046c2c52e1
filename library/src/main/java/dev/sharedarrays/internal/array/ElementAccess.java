package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import dev.sharedarrays.internal.segment.Segment;
import java.lang.foreign.MemorySegment;

/**
 * One element read, write or atomic access of an array. A file that shrank under a shm or file
 * array faults; the accesses of such arrays ({@code mayShrink}) go out of line, where the fault
 * can be caught (see {@link OutOfLineAccess}), and become a SegmentTruncatedException.
 */
public final class ElementAccess {
    private ElementAccess() {
    }

    public static double getDouble(ElementType type, Segment segment, MemorySegment mem, long off, boolean mayShrink) {
        if (!mayShrink) {
            return ElementCodec.getDouble(type, mem, off);
        }
        try {
            return Double.longBitsToDouble(OutOfLineAccess.access(OutOfLineAccess.GET_DOUBLE, type, mem, off, 0, 0, 0));
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    public static long getLong(ElementType type, Segment segment, MemorySegment mem, long off, boolean mayShrink) {
        if (!mayShrink) {
            return ElementCodec.getLong(type, mem, off);
        }
        try {
            return OutOfLineAccess.access(OutOfLineAccess.GET_LONG, type, mem, off, 0, 0, 0);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    public static void set(ElementType type, Segment segment, MemorySegment mem, long off, int op, double dv, long lv,
            boolean mayShrink) {
        if (!mayShrink) {
            if (op == OutOfLineAccess.SET_DOUBLE) {
                ElementCodec.setDouble(type, mem, off, dv);
            } else {
                ElementCodec.setLong(type, mem, off, lv);
            }
            return;
        }
        try {
            OutOfLineAccess.access(op, type, mem, off, dv, lv, 0);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }

    /** An atomic access ({@link OutOfLineAccess}'s op codes) at byte offset off. */
    public static long atomic(ElementType type, Segment segment, MemorySegment d, int op, long off, long a, long b,
            boolean mayShrink) {
        if (!mayShrink) {
            return switch (op) {
                case OutOfLineAccess.COMPARE_AND_SET -> Atomics.compareAndSet(type, d, off, a, b) ? 1 : 0;
                case OutOfLineAccess.GET_AND_ADD -> Atomics.getAndAdd(type, d, off, a);
                case OutOfLineAccess.GET_AND_SET -> Atomics.getAndSet(type, d, off, a);
                case OutOfLineAccess.GET_VOLATILE -> Atomics.getVolatile(type, d, off);
                default -> {
                    Atomics.setVolatile(type, d, off, a);
                    yield 0;
                }
            };
        }
        try {
            return OutOfLineAccess.access(op, type, d, off, 0, a, b);
        } catch (InternalError e) {
            throw segment.truncated(e);
        }
    }
}
