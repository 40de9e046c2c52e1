package dev.sharedarrays;

import java.util.List;

/**
 * The element type of a {@link SharedNDArray}, also used as the array's type parameter:
 * {@code SharedNDArray<F64>} holds little-endian float64, numpy {@code '<f8'}.
 *
 * <p>Each marker class ({@link F64}, {@link I32}, ...) has exactly one instance, its {@code TYPE}
 * field. Instances are immutable and may be shared between threads.
 *
 * @param <T> the marker class itself
 */
public abstract sealed class DType<T extends DType<T>>
        permits F64, F32, I64, I32, I16, I8, U64, U32, U16, U8 {

    /** numpy's kind letter: 'f' float, 'i' signed integer, 'u' unsigned integer. */
    private final char kind;
    private final int code;
    private final String name;
    private final String descr;
    private final int itemSize;

    DType(int code, String name, String descr, char kind, int itemSize) {
        this.code = code;
        this.name = name;
        this.descr = descr;
        this.kind = kind;
        this.itemSize = itemSize;
    }

    /** Short name as in the API: {@code "F64"}. */
    public final String name() {
        return name;
    }

    /** numpy descr string: {@code "<f8"}, {@code "|u1"}. */
    public final String descr() {
        return descr;
    }

    /** Bytes per element. */
    public final int itemSize() {
        return itemSize;
    }

    /** Stable number stored in the segment's control block. */
    public final int code() {
        return code;
    }

    /** True for F64 and F32. */
    public final boolean isFloatingPoint() {
        return kind == 'f';
    }

    /** True for the U* types. */
    public final boolean isUnsigned() {
        return kind == 'u';
    }

    @Override
    public final String toString() {
        return name;
    }

    /** All element types, in code order. */
    public static List<DType<?>> all() {
        return List.of(F64.TYPE, F32.TYPE, I64.TYPE, I32.TYPE, I16.TYPE, I8.TYPE,
                U64.TYPE, U32.TYPE, U16.TYPE, U8.TYPE);
    }

    /**
     * The type with this control-block code.
     *
     * @throws IllegalArgumentException if no type has this code
     */
    public static DType<?> ofCode(int code) {
        for (DType<?> t : all()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown dtype code " + code + "; known codes are 1 to 10");
    }

    /**
     * The type with this name ({@code "F64"}, case-insensitive) or numpy descr ({@code "<f8"}).
     *
     * @throws IllegalArgumentException listing the accepted names if none matches
     */
    public static DType<?> of(String nameOrDescr) {
        for (DType<?> t : all()) {
            if (t.name.equalsIgnoreCase(nameOrDescr) || t.descr.equals(nameOrDescr)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + nameOrDescr
                + "'; accepted: F64 F32 I64 I32 I16 I8 U64 U32 U16 U8 or their numpy descr");
    }
}
