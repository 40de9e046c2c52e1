package dev.sharedarrays.internal.array;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;

/**
 * Moves up to {@link #SIZE} elements of one strided row between a segment and a heap block
 * ({@code double[]} or {@code long[]}), converting by type once per row rather than per element.
 * The operations that are not row kernels (products, variances, arg-reductions, cumulative sums,
 * sorts, reductions across an outer axis) run on these blocks with plain loops the JIT vectorizes.
 * Offsets and strides are in elements.
 */
final class Blocks {
    /** Elements per block: a few blocks fit the L1 cache. */
    static final int SIZE = 2048;

    private Blocks() {
    }

    /** Reads n elements as doubles (U64 as its unsigned value). */
    static void load(ElementType t, MemorySegment s, long off, long stride, int n, double[] dst) {
        switch (t) {
            case F64 -> {
                if (stride == 1) {
                    MemorySegment.copy(s, JAVA_DOUBLE, off * 8, dst, 0, n);
                } else {
                    for (int j = 0; j < n; j++) {
                        dst[j] = s.getAtIndex(JAVA_DOUBLE, off + j * stride);
                    }
                }
            }
            case F32 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_FLOAT, off + j * stride);
                }
            }
            case U64 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = ElementCodec.longToDouble(t, s.getAtIndex(JAVA_LONG, off + j * stride));
                }
            }
            case I64 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_LONG, off + j * stride);
                }
            }
            case I32 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_INT, off + j * stride);
                }
            }
            case I16 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_SHORT, off + j * stride);
                }
            }
            case I8 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_BYTE, off + j * stride);
                }
            }
            default -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = ElementCodec.getDouble(t, s, off + j * stride);
                }
            }
        }
    }

    /** Reads n integer elements as longs: signed types sign-extended, unsigned zero-extended, U64 as bits. */
    static void load(ElementType t, MemorySegment s, long off, long stride, int n, long[] dst) {
        switch (t) {
            case I64, U64 -> {
                if (stride == 1) {
                    MemorySegment.copy(s, JAVA_LONG, off * 8, dst, 0, n);
                } else {
                    for (int j = 0; j < n; j++) {
                        dst[j] = s.getAtIndex(JAVA_LONG, off + j * stride);
                    }
                }
            }
            case I32 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_INT, off + j * stride);
                }
            }
            case U32 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = Integer.toUnsignedLong(s.getAtIndex(JAVA_INT, off + j * stride));
                }
            }
            case I16 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_SHORT, off + j * stride);
                }
            }
            case U16 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = Short.toUnsignedLong(s.getAtIndex(JAVA_SHORT, off + j * stride));
                }
            }
            case I8 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = s.getAtIndex(JAVA_BYTE, off + j * stride);
                }
            }
            case U8, BOOL -> { // a bool byte is 0 or 1
                for (int j = 0; j < n; j++) {
                    dst[j] = Byte.toUnsignedLong(s.getAtIndex(JAVA_BYTE, off + j * stride));
                }
            }
            default -> throw new IllegalArgumentException(t + " is not an integer type");
        }
    }

    /** Writes n doubles into a float row (F32 rounds each) or an integer row (as {@link ElementCodec#setDouble}). */
    static void store(ElementType t, MemorySegment s, long off, long stride, int n, double[] src) {
        switch (t) {
            case F64 -> {
                if (stride == 1) {
                    MemorySegment.copy(src, 0, s, JAVA_DOUBLE, off * 8, n);
                } else {
                    for (int j = 0; j < n; j++) {
                        s.setAtIndex(JAVA_DOUBLE, off + j * stride, src[j]);
                    }
                }
            }
            case F32 -> {
                for (int j = 0; j < n; j++) {
                    s.setAtIndex(JAVA_FLOAT, off + j * stride, (float) src[j]);
                }
            }
            default -> {
                for (int j = 0; j < n; j++) {
                    ElementCodec.setDouble(t, s, off + j * stride, src[j]);
                }
            }
        }
    }

    /** Writes n longs into a row, wrapped to the element width (floats: converted). */
    static void store(ElementType t, MemorySegment s, long off, long stride, int n, long[] src) {
        switch (t) {
            case I64, U64 -> {
                if (stride == 1) {
                    MemorySegment.copy(src, 0, s, JAVA_LONG, off * 8, n);
                } else {
                    for (int j = 0; j < n; j++) {
                        s.setAtIndex(JAVA_LONG, off + j * stride, src[j]);
                    }
                }
            }
            case I32, U32 -> {
                for (int j = 0; j < n; j++) {
                    s.setAtIndex(JAVA_INT, off + j * stride, (int) src[j]);
                }
            }
            case I16, U16 -> {
                for (int j = 0; j < n; j++) {
                    s.setAtIndex(JAVA_SHORT, off + j * stride, (short) src[j]);
                }
            }
            case I8, U8 -> {
                for (int j = 0; j < n; j++) {
                    s.setAtIndex(JAVA_BYTE, off + j * stride, (byte) src[j]);
                }
            }
            default -> {
                for (int j = 0; j < n; j++) {
                    ElementCodec.setLong(t, s, off + j * stride, src[j]);
                }
            }
        }
    }
}
