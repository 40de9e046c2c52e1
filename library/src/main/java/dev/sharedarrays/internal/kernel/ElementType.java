package dev.sharedarrays.internal.kernel;

/**
 * The one table of element types: everything else (the public {@code DType} markers, the
 * element codecs, the kernels, tools/gen_kernels.py and the DSL) reads it. The generator parses
 * the rows below, so keep each on one line in this form.
 *
 * <p>{@code code} is the number stored in a segment's control block and never changes;
 * {@code descr} is numpy's; {@code kind} is numpy's kind letter ('f' float, 'i' signed, 'u'
 * unsigned, 'b' bool: one byte holding 0 or 1); {@code itemSize} is in bytes.
 */
public enum ElementType {
    // name(code, descr, kind, itemSize)
    F64(1, "<f8", 'f', 8),
    F32(2, "<f4", 'f', 4),
    I64(3, "<i8", 'i', 8),
    I32(4, "<i4", 'i', 4),
    I16(5, "<i2", 'i', 2),
    I8(6, "|i1", 'i', 1),
    U64(7, "<u8", 'u', 8),
    U32(8, "<u4", 'u', 4),
    U16(9, "<u2", 'u', 2),
    U8(10, "|u1", 'u', 1),
    BOOL(11, "|b1", 'b', 1);

    private static final ElementType[] BY_CODE = byCode();

    private final int code;
    private final String descr;
    private final char kind;
    private final int itemSize;

    ElementType(int code, String descr, char kind, int itemSize) {
        this.code = code;
        this.descr = descr;
        this.kind = kind;
        this.itemSize = itemSize;
    }

    private static ElementType[] byCode() {
        ElementType[] all = values();
        int max = 0;
        for (ElementType t : all) {
            max = Math.max(max, t.code);
        }
        ElementType[] out = new ElementType[max + 1];
        for (ElementType t : all) {
            out[t.code] = t;
        }
        return out;
    }

    /** The type stored in a control block as {@code code}, or null if none. */
    public static ElementType ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    public int code() {
        return code;
    }

    public String descr() {
        return descr;
    }

    public char kind() {
        return kind;
    }

    public int itemSize() {
        return itemSize;
    }

    public boolean isFloatingPoint() {
        return kind == 'f';
    }

    public boolean isUnsigned() {
        return kind == 'u';
    }

    /** True for BOOL, which has no arithmetic: only copies, comparisons, logic and reductions. */
    public boolean isBool() {
        return kind == 'b';
    }

    /** True for U64, whose values above Long.MAX_VALUE a Java long holds as negative bit patterns. */
    public boolean isUnsigned64() {
        return kind == 'u' && itemSize == 8;
    }

    /** The smallest value of an integer type, as a long (0 for unsigned types and BOOL). */
    public long minValue() {
        return kind == 'u' || kind == 'b' ? 0 : -1L << (8 * itemSize - 1);
    }

    /** The largest value of an integer type that a long holds (Long.MAX_VALUE for U64 and I64, 1 for BOOL). */
    public long maxValue() {
        if (kind == 'b') {
            return 1;
        }
        int bits = 8 * itemSize - (kind == 'u' ? 0 : 1);
        return bits >= 63 ? Long.MAX_VALUE : (1L << bits) - 1;
    }
}
