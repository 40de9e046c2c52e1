package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.MemorySegment;

/**
 * Copies between an array (a segment and a strided layout) and a Java heap array in row-major
 * order, for every heap array type through one loop. The heap array is seen as a contiguous
 * array of its own element type ({@code double[]} as F64, {@code int[]} as I32, ...); values go
 * through doubles when the heap type is a float type and through longs otherwise, converted as
 * {@link ElementCodec} does. Rows whose storage matches the heap type bit for bit are bulk copies.
 */
public final class HeapCopy {
    private HeapCopy() {
    }

    /** A heap array seen as a contiguous array of its own element type. */
    private record Heap(ElementType type, MemorySegment segment) {
    }

    private static Heap heap(Object heapArray) {
        return switch (heapArray) {
            case double[] a -> new Heap(ElementType.F64, MemorySegment.ofArray(a));
            case float[] a -> new Heap(ElementType.F32, MemorySegment.ofArray(a));
            case long[] a -> new Heap(ElementType.I64, MemorySegment.ofArray(a));
            case int[] a -> new Heap(ElementType.I32, MemorySegment.ofArray(a));
            case short[] a -> new Heap(ElementType.I16, MemorySegment.ofArray(a));
            case byte[] a -> new Heap(ElementType.I8, MemorySegment.ofArray(a));
            default -> throw new IllegalArgumentException("not a primitive numeric array: " + heapArray.getClass().getName());
        };
    }

    /** Writes the heap array's elements into the array, in row-major order. */
    public static void copyIn(ElementType t, MemorySegment d, StridedLayout l, Object heapArray) {
        Heap h = heap(heapArray);
        copy(h.type(), h.segment(), t, d, l, h.type().isFloatingPoint(), true);
    }

    /** Reads the array's elements into the heap array, in row-major order. */
    public static void copyOut(ElementType t, MemorySegment d, StridedLayout l, Object heapArray) {
        Heap h = heap(heapArray);
        copy(h.type(), h.segment(), t, d, l, h.type().isFloatingPoint(), false);
    }

    private static void copy(ElementType h, MemorySegment heap, ElementType t, MemorySegment d, StridedLayout l,
                             boolean viaDouble, boolean in) {
        int size = t.itemSize();
        boolean sameBits = h.itemSize() == size && h.isFloatingPoint() == t.isFloatingPoint();
        long[] position = {0};
        Loops.rows(l, size, (off, stride, n) -> {
            long p = position[0];
            if (sameBits && stride == size) {
                if (in) {
                    MemorySegment.copy(heap, p * size, d, off, n * size);
                } else {
                    MemorySegment.copy(d, off, heap, p * size, n * size);
                }
            } else {
                long e = off / size;
                long step = stride / size;
                for (long k = 0; k < n; k++, e += step) {
                    if (in) {
                        convert(h, heap, p + k, t, d, e, viaDouble);
                    } else {
                        convert(t, d, e, h, heap, p + k, viaDouble);
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
