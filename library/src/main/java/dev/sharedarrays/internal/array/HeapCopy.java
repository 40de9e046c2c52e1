package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies between an array (a segment and a strided layout) and a Java heap array in row-major
 * order, for every heap array type through one loop. The heap array is seen as a contiguous
 * array of its own element type ({@code double[]} as F64, {@code int[]} as I32, ...); values go
 * through doubles when the heap type is a float type and through longs otherwise, converted as
 * {@link ElementCodec} does. Rows whose storage matches the heap type bit for bit are bulk copies.
 * A {@code boolean[]} is seen as a BOOL array (through a byte[] of 0 and 1); a BOOL array takes
 * any nonzero value (NaN too) as true, as numpy's cast to bool.
 */
public final class HeapCopy {
    private HeapCopy() {
    }

    /**
     * A heap array seen as a contiguous array of its own element type: the array itself with its
     * element layout for bulk copies, and a heap segment over it for element conversions.
     */
    private record Heap(ElementType type, Object array, ValueLayout element, MemorySegment segment) {
    }

    private static Heap heap(Object heapArray) {
        return switch (heapArray) {
            case double[] a -> new Heap(ElementType.F64, a, ValueLayout.JAVA_DOUBLE, MemorySegment.ofArray(a));
            case float[] a -> new Heap(ElementType.F32, a, ValueLayout.JAVA_FLOAT, MemorySegment.ofArray(a));
            case long[] a -> new Heap(ElementType.I64, a, ValueLayout.JAVA_LONG, MemorySegment.ofArray(a));
            case int[] a -> new Heap(ElementType.I32, a, ValueLayout.JAVA_INT, MemorySegment.ofArray(a));
            case short[] a -> new Heap(ElementType.I16, a, ValueLayout.JAVA_SHORT, MemorySegment.ofArray(a));
            case byte[] a -> new Heap(ElementType.I8, a, ValueLayout.JAVA_BYTE, MemorySegment.ofArray(a));
            case Bytes b -> new Heap(ElementType.BOOL, b.bytes(), ValueLayout.JAVA_BYTE, MemorySegment.ofArray(b.bytes()));
            default -> throw new IllegalArgumentException("not a primitive numeric array: " + heapArray.getClass().getName());
        };
    }

    /** The bytes (0 or 1) of a boolean[], which has no heap segment of its own. */
    private record Bytes(byte[] bytes) {
    }

    /** Writes the heap array's elements into the array, in row-major order. */
    public static void copyIn(ElementType t, MemorySegment d, StridedLayout l, Object heapArray) {
        if (heapArray instanceof boolean[] a) {
            byte[] b = new byte[a.length];
            for (int i = 0; i < a.length; i++) {
                b[i] = a[i] ? (byte) 1 : 0;
            }
            heapArray = new Bytes(b);
        }
        copy(heap(heapArray), t, d, l, true);
    }

    /** Reads the array's elements into the heap array, in row-major order. */
    public static void copyOut(ElementType t, MemorySegment d, StridedLayout l, Object heapArray) {
        if (heapArray instanceof boolean[] a) {
            byte[] b = new byte[a.length];
            copy(heap(new Bytes(b)), t, d, l, false);
            for (int i = 0; i < a.length; i++) {
                a[i] = b[i] != 0;
            }
            return;
        }
        copy(heap(heapArray), t, d, l, false);
    }

    private static void copy(Heap h, ElementType t, MemorySegment d, StridedLayout l, boolean in) {
        int size = t.itemSize();
        // a byte is not a bool: copies between I8 and BOOL convert (nonzero is 1)
        boolean sameBits = h.type().itemSize() == size && h.type().isFloatingPoint() == t.isFloatingPoint()
                && h.type().isBool() == t.isBool();
        // to BOOL from a float goes through the double: 0.5 is true
        boolean viaDouble = h.type().isFloatingPoint() || h.type().isBool() && t.isFloatingPoint();
        long[] position = {0};
        Loops.rows(l, size, (off, stride, n) -> {
            long p = position[0];
            if (sameBits && stride == size) {
                // the segment <-> array copies, as the JDK offers them for Java arrays
                if (in) {
                    MemorySegment.copy(h.array(), (int) p, d, h.element(), off, (int) n);
                } else {
                    MemorySegment.copy(d, h.element(), off, h.array(), (int) p, (int) n);
                }
            } else {
                long e = off / size;
                long step = stride / size;
                for (long k = 0; k < n; k++, e += step) {
                    if (in) {
                        convert(h.type(), h.segment(), p + k, t, d, e, viaDouble);
                    } else {
                        convert(t, d, e, h.type(), h.segment(), p + k, viaDouble);
                    }
                }
            }
            position[0] = p + n;
        });
    }

    private static void convert(ElementType from, MemorySegment src, long i, ElementType to, MemorySegment dst, long j,
                                boolean viaDouble) {
        if (viaDouble) {
            ElementCodec.setDouble(to, dst, j, ElementCodec.getDouble(from, src, i));
        } else {
            ElementCodec.setLong(to, dst, j, ElementCodec.getLong(from, src, i));
        }
    }
}
