package dev.sharedarrays.internal.segment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.os.MappedWords;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * Element accesses of arrays whose file may shrink under them (shm, file), made in one method
 * that HotSpot does not inline, with the same results as {@link ElementCodec} and
 * {@code Atomics}.
 *
 * <p>Why: the JDK reports a SIGBUS in a memory access (the file was truncated under the
 * mapping) as an {@link InternalError} that it throws asynchronously, at the thread's next
 * safepoint poll. Inlined into a caller's loop, an access's fault surfaces at the caller's
 * poll, outside any try of ours, in user code. A method that is not inlined polls at its own
 * return, inside the caller's try, where it becomes a SegmentTruncatedException. HotSpot
 * inlines no method of more than FreqInlineSize (325) bytes of bytecode (C1: 35), so
 * {@link #access} keeps every access in one switch and must stay that large (TruncationTest
 * checks the effect in a JVM with C2). The call costs a few nanoseconds per element; memfd and
 * anonymous arrays, which cannot shrink, do not use it.
 */
public final class OutOfLineAccess {
    public static final int GET_DOUBLE = 0;
    public static final int GET_LONG = 1;
    public static final int SET_DOUBLE = 2;
    public static final int SET_LONG = 3;
    public static final int COMPARE_AND_SET = 4;
    public static final int GET_AND_ADD = 5;
    public static final int GET_AND_SET = 6;
    public static final int GET_VOLATILE = 7;
    public static final int SET_VOLATILE = 8;
    /** No access: only the return, whose safepoint poll delivers a fault of an access before it. */
    public static final int POLL = 9;

    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final VarHandle INT = JAVA_INT.varHandle();

    private OutOfLineAccess() {
    }

    /**
     * Delivers here, inside the caller's try, the fault of any access the caller made before
     * (an inlined access's fault would otherwise surface at a later poll, outside the try).
     */
    public static void poll() {
        access(POLL, null, null, 0, 0, 0, 0);
    }

    /**
     * One access of element index i (a byte offset for the atomics, as {@code Atomics} takes).
     *
     * @param dv the double to store (SET_DOUBLE)
     * @param a  the long to store (SET_LONG, GET_AND_SET, SET_VOLATILE), the delta (GET_AND_ADD)
     *           or the expected value (COMPARE_AND_SET)
     * @param b  the new value (COMPARE_AND_SET)
     * @return GET_DOUBLE: the double's raw bits; GET_LONG and the atomics: the value (1 or 0 for
     *         COMPARE_AND_SET); stores: 0
     */
    public static long access(int op, ElementType t, MemorySegment d, long i, double dv, long a, long b) {
        switch (op) {
            case GET_DOUBLE:
                return Double.doubleToRawLongBits(switch (t) {
                    case F64 -> d.getAtIndex(JAVA_DOUBLE, i);
                    case F32 -> d.getAtIndex(JAVA_FLOAT, i);
                    case I64 -> (double) d.getAtIndex(JAVA_LONG, i);
                    case U64 -> ElementCodec.longToDouble(t, d.getAtIndex(JAVA_LONG, i));
                    case I32 -> d.getAtIndex(JAVA_INT, i);
                    case U32 -> Integer.toUnsignedLong(d.getAtIndex(JAVA_INT, i));
                    case I16 -> d.getAtIndex(JAVA_SHORT, i);
                    case U16 -> Short.toUnsignedInt(d.getAtIndex(JAVA_SHORT, i));
                    case I8 -> d.getAtIndex(JAVA_BYTE, i);
                    case U8 -> Byte.toUnsignedInt(d.getAtIndex(JAVA_BYTE, i));
                    case BOOL -> d.getAtIndex(JAVA_BYTE, i) != 0 ? 1 : 0;
                });
            case GET_LONG:
                return switch (t) {
                    case F64 -> (long) d.getAtIndex(JAVA_DOUBLE, i);
                    case F32 -> (long) d.getAtIndex(JAVA_FLOAT, i);
                    case I64, U64 -> d.getAtIndex(JAVA_LONG, i);
                    case I32 -> d.getAtIndex(JAVA_INT, i);
                    case U32 -> Integer.toUnsignedLong(d.getAtIndex(JAVA_INT, i));
                    case I16 -> d.getAtIndex(JAVA_SHORT, i);
                    case U16 -> Short.toUnsignedInt(d.getAtIndex(JAVA_SHORT, i));
                    case I8 -> d.getAtIndex(JAVA_BYTE, i);
                    case U8 -> Byte.toUnsignedInt(d.getAtIndex(JAVA_BYTE, i));
                    case BOOL -> d.getAtIndex(JAVA_BYTE, i) != 0 ? 1 : 0;
                };
            case SET_DOUBLE:
                switch (t) {
                    case F64 -> d.setAtIndex(JAVA_DOUBLE, i, dv);
                    case F32 -> d.setAtIndex(JAVA_FLOAT, i, (float) dv);
                    case I64, U64 -> d.setAtIndex(JAVA_LONG, i, ElementCodec.toLongBits(t, dv));
                    case I32, U32 -> d.setAtIndex(JAVA_INT, i, (int) ElementCodec.toLongBits(t, dv));
                    case I16, U16 -> d.setAtIndex(JAVA_SHORT, i, (short) ElementCodec.toLongBits(t, dv));
                    case I8, U8, BOOL -> d.setAtIndex(JAVA_BYTE, i, (byte) ElementCodec.toLongBits(t, dv));
                }
                return 0;
            case SET_LONG:
                switch (t) {
                    case F64 -> d.setAtIndex(JAVA_DOUBLE, i, (double) a);
                    case F32 -> d.setAtIndex(JAVA_FLOAT, i, (float) a);
                    case I64, U64 -> d.setAtIndex(JAVA_LONG, i, a);
                    case I32, U32 -> d.setAtIndex(JAVA_INT, i, (int) a);
                    case I16, U16 -> d.setAtIndex(JAVA_SHORT, i, (short) a);
                    case I8, U8 -> d.setAtIndex(JAVA_BYTE, i, (byte) a);
                    case BOOL -> d.setAtIndex(JAVA_BYTE, i, a != 0 ? (byte) 1 : 0);
                }
                return 0;
            case COMPARE_AND_SET:
                return (t == ElementType.I64 ? MappedWords.cas(d, i, a, b) : MappedWords.casInt(d, i, (int) a, (int) b)) ? 1 : 0;
            case GET_AND_ADD:
                return t == ElementType.I64 ? MappedWords.getAndAdd(d, i, a) : MappedWords.getAndAddInt(d, i, (int) a);
            case GET_AND_SET:
                return t == ElementType.I64 ? MappedWords.getAndSet(d, i, a) : MappedWords.getAndSetInt(d, i, (int) a);
            case GET_VOLATILE:
                return t == ElementType.I64 ? (long) LONG.getVolatile(d, i) : (int) INT.getVolatile(d, i);
            case SET_VOLATILE:
                if (t == ElementType.I64) {
                    LONG.setVolatile(d, i, a);
                } else {
                    INT.setVolatile(d, i, (int) a);
                }
                return 0;
            case POLL:
                return 0;
            default:
                throw new IllegalArgumentException("no element access " + op);
        }
    }
}
