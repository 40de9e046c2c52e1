package dev.sharedarrays.internal.kernel;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.math.BigInteger;

/**
 * Reads and writes one element of any type, by element index {@code i} into a segment, as a
 * double or a long. Integer stores wrap to the element width; unsigned types read as their
 * unsigned value (U64 as its bit pattern when read as a long). BOOL reads as 0 or 1 (any nonzero
 * byte, which another process may have written, as 1) and stores 1 for any nonzero value or NaN,
 * as numpy's cast to bool.
 */
public final class ElementCodec {
    private ElementCodec() {
    }

    public static double getDouble(ElementType t, MemorySegment d, long i) {
        return switch (t) {
            case F64 -> d.getAtIndex(JAVA_DOUBLE, i);
            case F32 -> d.getAtIndex(JAVA_FLOAT, i);
            case U64 -> unsignedToDouble(d.getAtIndex(JAVA_LONG, i));
            default -> (double) getLong(t, d, i);
        };
    }

    public static long getLong(ElementType t, MemorySegment d, long i) {
        return switch (t) {
            case F64 -> (long) d.getAtIndex(JAVA_DOUBLE, i);
            case F32 -> (long) d.getAtIndex(JAVA_FLOAT, i);
            case I64, U64 -> d.getAtIndex(JAVA_LONG, i);
            case I32 -> d.getAtIndex(JAVA_INT, i);
            case I16 -> d.getAtIndex(JAVA_SHORT, i);
            case I8 -> d.getAtIndex(JAVA_BYTE, i);
            case U32 -> Integer.toUnsignedLong(d.getAtIndex(JAVA_INT, i));
            case U16 -> Short.toUnsignedInt(d.getAtIndex(JAVA_SHORT, i));
            case U8 -> Byte.toUnsignedInt(d.getAtIndex(JAVA_BYTE, i));
            case BOOL -> d.getAtIndex(JAVA_BYTE, i) != 0 ? 1 : 0;
        };
    }

    /** Floats store the value; integers take it truncated toward zero, then wrapped. */
    public static void setDouble(ElementType t, MemorySegment d, long i, double value) {
        switch (t) {
            case F64 -> d.setAtIndex(JAVA_DOUBLE, i, value);
            case F32 -> d.setAtIndex(JAVA_FLOAT, i, (float) value);
            default -> setLong(t, d, i, toLongBits(t, value));
        }
    }

    /** Integers wrap to their width; floats take the value converted. */
    public static void setLong(ElementType t, MemorySegment d, long i, long value) {
        switch (t) {
            case F64 -> d.setAtIndex(JAVA_DOUBLE, i, (double) value);
            case F32 -> d.setAtIndex(JAVA_FLOAT, i, (float) value);
            case I64, U64 -> d.setAtIndex(JAVA_LONG, i, value);
            case I32, U32 -> d.setAtIndex(JAVA_INT, i, (int) value);
            case I16, U16 -> d.setAtIndex(JAVA_SHORT, i, (short) value);
            case I8, U8 -> d.setAtIndex(JAVA_BYTE, i, (byte) value);
            case BOOL -> d.setAtIndex(JAVA_BYTE, i, value != 0 ? (byte) 1 : 0);
        }
    }

    /** The element in the closest Java type that holds it exactly (U64 as BigInteger). */
    public static Number getNumber(ElementType t, MemorySegment d, long i) {
        return switch (t) {
            case F64 -> d.getAtIndex(JAVA_DOUBLE, i);
            case F32 -> d.getAtIndex(JAVA_FLOAT, i);
            case I64 -> d.getAtIndex(JAVA_LONG, i);
            case I32 -> d.getAtIndex(JAVA_INT, i);
            case I16 -> d.getAtIndex(JAVA_SHORT, i);
            case I8 -> d.getAtIndex(JAVA_BYTE, i);
            case U64 -> unsignedBig(d.getAtIndex(JAVA_LONG, i));
            case U32 -> Integer.toUnsignedLong(d.getAtIndex(JAVA_INT, i));
            case U16 -> Short.toUnsignedInt(d.getAtIndex(JAVA_SHORT, i));
            case U8 -> Byte.toUnsignedInt(d.getAtIndex(JAVA_BYTE, i));
            case BOOL -> d.getAtIndex(JAVA_BYTE, i) != 0 ? 1 : 0;
        };
    }

    /** The element as its repr prints it (BOOL as numpy's True and False). */
    public static String format(ElementType t, MemorySegment d, long i) {
        if (t.isBool()) {
            return d.getAtIndex(JAVA_BYTE, i) != 0 ? "True" : "False";
        }
        if (t.isUnsigned64()) {
            return Long.toUnsignedString(d.getAtIndex(JAVA_LONG, i));
        }
        return t.isFloatingPoint() ? Double.toString(getDouble(t, d, i)) : Long.toString(getLong(t, d, i));
    }

    /** A long read from a type ({@link #getLong}) as a double: U64 as its unsigned value. */
    public static double longToDouble(ElementType t, long v) {
        return t.isUnsigned64() ? unsignedToDouble(v) : (double) v;
    }

    /**
     * A double truncated toward zero as the long an integer element of type t stores (U64 past
     * 2^63 too); for BOOL, 1 unless v is 0 (NaN is 1, as numpy's bool(nan)).
     */
    public static long toLongBits(ElementType t, double v) {
        if (t.isBool()) {
            return v != 0 ? 1 : 0;
        }
        return t.isUnsigned64() ? doubleToUnsigned(v) : (long) v;
    }

    public static BigInteger unsignedBig(long bits) {
        return new BigInteger(Long.toUnsignedString(bits));
    }

    private static double unsignedToDouble(long bits) {
        if (bits >= 0) {
            return (double) bits;
        }
        // halved with the lost bit kept (sticky), so that the one rounding is the correct one,
        // as numpy's (C's) conversion: 2^63 + 1025 rounds up to 2^63 + 2048
        return (double) ((bits >>> 1) | (bits & 1)) * 2.0;
    }

    private static long doubleToUnsigned(double v) {
        if (v >= 0x1p63) {
            return (long) (v - 0x1p63) ^ Long.MIN_VALUE;
        }
        return (long) v;
    }
}
