package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.ShapeMismatchException;
import dev.sharedarrays.internal.array.HeapCopy;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/** The work of {@code BulkAccess}: fills, copies between heap arrays and an array, and copies into new arrays. */
public final class BulkOps {
    private BulkOps() {
    }

    public static void fill(ArrayCore a, double value) {
        a.locks().write(() -> Loops.fill(a.type(), a.mem(), a.layout(), value, ElementCodec.toLongBits(a.type(), value)));
    }

    public static void fill(ArrayCore a, long value) {
        a.locks().write(() -> Loops.fill(a.type(), a.mem(), a.layout(), (double) value, value));
    }

    /** Copies a Java array of any primitive type in, row-major, under the write lock. */
    public static void copyIn(ArrayCore a, Object heapArray, int length) {
        a.locks().write(() -> {
            if (length != a.size()) {
                throw new ShapeMismatchException("a heap array of " + length + " elements does not fit an array of size " + a.size()
                        + " (shape " + Arrays.toString(a.layout().shape()) + ")");
            }
            HeapCopy.copyIn(a.type(), a.mem(), a.layout(), heapArray);
        });
    }

    /** Copies the elements out into a Java array of any primitive type, row-major, under the read lock. */
    public static <A> A copyOut(ArrayCore a, A heapArray) {
        return a.locks().read(() -> {
            HeapCopy.copyOut(a.type(), a.mem(), a.layout(), heapArray);
            return heapArray;
        });
    }

    /** The length of a Java array that holds every element, or an IllegalStateException. */
    public static int heapLength(ArrayCore a) {
        long size = a.size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("an array of " + size + " elements does not fit a Java array; copy a slice");
        }
        return (int) size;
    }

    /** The elements, each in the closest Java type that holds it exactly. */
    public static List<Number> toList(ArrayCore a) {
        return a.locks().read(() -> {
            Number[] out = new Number[heapLength(a)];
            MemorySegment d = a.mem();
            for (int i = 0; i < out.length; i++) {
                out[i] = ElementCodec.getNumber(a.type(), d, a.flatOffset(i));
            }
            return List.of(out);
        });
    }

    /** A new contiguous process-local copy. */
    public static ArrayCore copy(ArrayCore a) {
        return a.locks().read(() -> {
            a.checkOpen();
            ArrayCore out = ArrayCore.empty(a.dtype(), a.layout().shape());
            Loops.binary(a.type(), Op.ASSIGN, out.mem(), out.layout(), a.mem(), a.layout());
            return out;
        });
    }

    /** A new contiguous shared copy, created as options say. */
    public static ArrayCore copy(ArrayCore a, CreateOptions options) {
        return a.locks().read(() -> {
            a.checkOpen();
            return ArrayCore.filled(new ArrayCore(Backends.create(a.dtype(), a.layout().shape(), options), a.dtype()),
                    out -> Loops.binary(a.type(), Op.ASSIGN, out.mem(), out.layout(), a.mem(), a.layout()));
        });
    }
}
