package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Boolean-mask indexing of a {@link SharedNDArray}, as numpy's {@code a[mask]} and
 * {@code a[mask] = v}: the mask is a {@link Bool} array of the array's shape, and its true
 * elements select elements of the array in row-major order. Reads take the read locks of the
 * array and the mask, writes the array's write lock (all in the order of array id).
 *
 * @param <T> the element type marker
 */
public sealed interface Masking<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
    }

    /**
     * The selected elements, in row-major order, as a new process-local 1-d array ({@code a[mask]}).
     *
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     * @throws IllegalArgumentException if the mask selects no element: arrays have no empty shape
     */
    default SharedNDArray<T> masked(SharedNDArray<Bool> mask) {
        SharedNDArray<T> a = self();
        checkMask(a, mask, "a[mask]");
        return Elementwise.reading(() -> {
            MemorySegment m = mask.mem();
            long count = MaskOps.count(m, mask.layout());
            if (count == 0) {
                throw new IllegalArgumentException("a[mask]: the mask selects no element, and arrays cannot be empty"
                        + " (every dimension is >= 1); check mask.sum() > 0 first");
            }
            return SharedNDArray.filled(Local.empty(a.dtype(), new long[] {count}),
                    out -> MaskOps.compress(a.itemSize(), a.mem(), a.layout(), m, mask.layout(), out.mem(), count));
        }, a, mask);
    }

    /**
     * Stores value into the selected elements ({@code a[mask] = value}); integer types take it
     * truncated toward zero and wrapped, Bool any nonzero as true, as {@link SharedNDArray#setDouble}.
     *
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     */
    default void setMasked(SharedNDArray<Bool> mask, double value) {
        SharedNDArray<T> a = self();
        ElementType t = a.type();
        setScalar(mask, d -> ElementCodec.setDouble(t, d, 0, value));
    }

    /**
     * Stores value into the selected elements ({@code a[mask] = value}).
     *
     * @throws IllegalArgumentException if value is out of range for an integer type (numpy 2 refuses it too)
     * @throws ShapeMismatchException if {@code !Arrays.equals(mask.shape(), shape())}
     */
    default void setMasked(SharedNDArray<Bool> mask, long value) {
        SharedNDArray<T> a = self();
        ElementType t = a.type();
        InPlace.checkRange(t, value);
        setScalar(mask, d -> ElementCodec.setLong(t, d, 0, value));
    }

    /**
     * Stores values, in row-major order, into the selected elements, in row-major order
     * ({@code a[mask] = values}); a one-element values array is stored into every selected one.
     * Values that overlap this array are read as they were before (through a copy).
     *
     * @throws DTypeMismatchException if {@code values.dtype() != dtype()}
     * @throws ShapeMismatchException if the mask's shape differs from this array's, or values has
     *         neither 1 element nor as many as the mask selects
     */
    default void setMasked(SharedNDArray<Bool> mask, SharedNDArray<T> values) {
        SharedNDArray<T> a = self();
        checkMask(a, mask, "a[mask] = values");
        if (values.type() != a.type()) {
            throw new DTypeMismatchException("a[mask] = values: the array holds " + a.dtype() + ", the values " + values.dtype()
                    + " (" + a.dtype().descr() + " vs " + values.dtype().descr() + "); convert the values first");
        }
        if (values.size() == 1) {
            setScalar(mask, d -> MemorySegment.copy(values.mem(), values.layout().offset() * a.itemSize(), d, 0, a.itemSize()), values);
            return;
        }
        Elementwise.writing(a, () -> {
            int size = a.itemSize();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment m = readable(a, mask, arena);
                long count = MaskOps.count(m, layoutOf(a, mask));
                if (values.size() != count) {
                    throw new ShapeMismatchException("a[mask] = values: the mask selects " + count + " elements, values has "
                            + values.size() + " (shape " + Arrays.toString(values.layout().shape()) + ")");
                }
                MemorySegment v = values.mem();
                long vo = values.layout().offset() * size;
                if (!values.layout().isContiguous() || values.id() == a.id()) {
                    v = arena.allocate(count * size, 64);
                    vo = 0;
                    Loops.binary(a.type(), Op.ASSIGN, v, StridedLayout.contiguous(values.layout().shape()), values.mem(),
                            values.layout());
                }
                MaskOps.expand(size, a.mem(), a.layout(), m, layoutOf(a, mask), v.asSlice(vo), count);
            }
        }, mask, values);
    }

    private void setScalar(SharedNDArray<Bool> mask, Consumer<MemorySegment> store, SharedNDArray<?>... reads) {
        SharedNDArray<T> a = self();
        checkMask(a, mask, "a[mask] = value");
        Elementwise.writing(a, () -> {
            int size = a.itemSize();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment value = arena.allocate(size, size);
                store.accept(value);
                MemorySegment m = readable(a, mask, arena);
                // where(mask, value, a) written back into a
                MaskOps.where(size, m, layoutOf(a, mask), value, Elementwise.repeated(a.layout().shape()), a.mem(), a.layout(),
                        a.mem(), a.layout());
            }
        }, with(mask, reads));
    }

    private static SharedNDArray<?>[] with(SharedNDArray<?> first, SharedNDArray<?>[] more) {
        SharedNDArray<?>[] all = Arrays.copyOf(more, more.length + 1, SharedNDArray[].class);
        all[more.length] = first;
        return all;
    }

    /** The mask's bytes, or a contiguous copy of them if the mask is a view of this array (which is written). */
    private static MemorySegment readable(SharedNDArray<?> a, SharedNDArray<Bool> mask, Arena arena) {
        if (mask.id() != a.id()) {
            return mask.mem();
        }
        MemorySegment copy = arena.allocate(mask.size(), 64);
        Loops.binary(ElementType.BOOL, Op.ASSIGN, copy, StridedLayout.contiguous(mask.layout().shape()), mask.mem(), mask.layout());
        return copy;
    }

    /** The layout of what {@link #readable} returned. */
    private static StridedLayout layoutOf(SharedNDArray<?> a, SharedNDArray<Bool> mask) {
        return mask.id() != a.id() ? mask.layout() : StridedLayout.contiguous(mask.layout().shape());
    }

    private static void checkMask(SharedNDArray<?> a, SharedNDArray<Bool> mask, String what) {
        if (!mask.type().isBool()) {
            throw new DTypeMismatchException(what + ": the mask holds " + mask.dtype() + ", not BOOL; compare to get one, as in a.gt(0.5)");
        }
        if (!Arrays.equals(mask.layout().shape(), a.layout().shape())) {
            throw new ShapeMismatchException(what + ": the mask's shape " + Arrays.toString(mask.layout().shape())
                    + " differs from the array's " + Arrays.toString(a.layout().shape()));
        }
    }
}
