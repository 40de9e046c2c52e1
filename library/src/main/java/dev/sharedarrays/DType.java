package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;
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
        permits F64, F32, I64, I32, I16, I8, U64, U32, U16, U8, Bool {

    private final ElementType type;

    DType(ElementType type) {
        this.type = type;
    }

    /** The row of the element-type table this marker stands for. */
    final ElementType elementType() {
        return type;
    }

    /** Short name as in the API: {@code "F64"}. */
    public final String name() {
        return type.name();
    }

    /** numpy descr string: {@code "<f8"}, {@code "|u1"}. */
    public final String descr() {
        return type.descr();
    }

    /** Bytes per element. */
    public final int itemSize() {
        return type.itemSize();
    }

    /** Stable number stored in the segment's control block. */
    public final int code() {
        return type.code();
    }

    /** True for F64 and F32. */
    public final boolean isFloatingPoint() {
        return type.isFloatingPoint();
    }

    /** True for the U* types. */
    public final boolean isUnsigned() {
        return type.isUnsigned();
    }

    /** True for {@link Bool}. */
    public final boolean isBool() {
        return type.isBool();
    }

    @Override
    public final String toString() {
        return type.name();
    }

    /** All element types, in code order. */
    public static List<DType<?>> all() {
        return Markers.ALL;
    }

    /** The marker of a table row. */
    static DType<?> of(ElementType type) {
        return Markers.ALL.get(type.ordinal());
    }

    /** Initialised on first use, after every marker class (which extends this one) is. */
    private static final class Markers {
        static final List<DType<?>> ALL = List.of(F64.TYPE, F32.TYPE, I64.TYPE, I32.TYPE, I16.TYPE, I8.TYPE,
                U64.TYPE, U32.TYPE, U16.TYPE, U8.TYPE, Bool.TYPE);

        static {
            for (DType<?> t : ALL) {
                if (t.type.ordinal() != ALL.indexOf(t)) {
                    throw new AssertionError("markers out of table order at " + t);
                }
            }
        }
    }

    /**
     * The type with this control-block code.
     *
     * @throws IllegalArgumentException if no type has this code
     */
    public static DType<?> ofCode(int code) {
        ElementType t = ElementType.ofCode(code);
        if (t == null) {
            throw new IllegalArgumentException("unknown dtype code " + code + "; known codes are "
                    + ElementType.values()[0].code() + " to " + ElementType.values()[ElementType.values().length - 1].code());
        }
        return of(t);
    }

    /**
     * The type with this name ({@code "F64"}, case-insensitive) or numpy descr ({@code "<f8"}, or
     * without its byte order as numpy also takes it: {@code "f8"}, {@code "u1"}).
     *
     * @throws IllegalArgumentException listing the accepted names if none matches
     */
    public static DType<?> of(String nameOrDescr) {
        for (DType<?> t : all()) {
            if (t.name().equalsIgnoreCase(nameOrDescr) || t.descr().equals(nameOrDescr) || t.descr().substring(1).equals(nameOrDescr)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + nameOrDescr
                + "'; accepted: " + String.join(" ", all().stream().map(DType::name).toList()) + " or their numpy descr");
    }
}
