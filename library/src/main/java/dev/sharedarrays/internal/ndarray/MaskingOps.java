package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.ShapeMismatchException;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.Consumer;

/** The work of {@code Masking}: numpy's {@code a[mask]} and {@code a[mask] = v}. */
public final class MaskingOps {
    private MaskingOps() {
    }

    /** The elements where mask is true, in row-major order, as a new 1-d process-local array. */
    public static ArrayCore masked(ArrayCore a, ArrayCore mask) {
        checkMask(a, mask, "a[mask]");
        return Elementwise.reading(() -> {
            MemorySegment m = mask.mem();
            long count = MaskOps.count(m, mask.layout());
            if (count == 0) {
                throw new IllegalArgumentException("a[mask]: the mask selects no element, and arrays cannot be empty"
                        + " (every dimension is >= 1); check mask.sum() > 0 first");
            }
            return ArrayCore.filled(ArrayCore.empty(a.dtype(), new long[] {count}),
                    out -> MaskOps.compress(a.itemSize(), a.mem(), a.layout(), m, mask.layout(), out.mem(), count));
        }, a, mask);
    }

    public static void setMasked(ArrayCore a, ArrayCore mask, double value) {
        ElementType t = a.type();
        setScalar(a, mask, d -> ElementCodec.setDouble(t, d, 0, value));
    }

    public static void setMasked(ArrayCore a, ArrayCore mask, long value) {
        ElementType t = a.type();
        InPlace.checkRange(t, value);
        setScalar(a, mask, d -> ElementCodec.setLong(t, d, 0, value));
    }

    /** a[mask] = values: values has one element, or one per true element of mask. */
    public static void setMasked(ArrayCore a, ArrayCore mask, ArrayCore values) {
        checkMask(a, mask, "a[mask] = values");
        if (values.type() != a.type()) {
            throw new DTypeMismatchException("a[mask] = values: the array holds " + a.dtype() + ", the values " + values.dtype()
                    + " (" + a.dtype().descr() + " vs " + values.dtype().descr() + "); convert the values first");
        }
        if (values.size() == 1) {
            setScalar(a, mask, d -> MemorySegment.copy(values.mem(), values.layout().offset() * a.itemSize(), d, 0, a.itemSize()),
                    values);
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

    private static void setScalar(ArrayCore a, ArrayCore mask, Consumer<MemorySegment> store, ArrayCore... reads) {
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

    private static ArrayCore[] with(ArrayCore first, ArrayCore[] more) {
        ArrayCore[] all = Arrays.copyOf(more, more.length + 1);
        all[more.length] = first;
        return all;
    }

    /** The mask's bytes, copied first when the mask is a view of the array being written. */
    private static MemorySegment readable(ArrayCore a, ArrayCore mask, Arena arena) {
        if (mask.id() != a.id()) {
            return mask.mem();
        }
        MemorySegment copy = arena.allocate(mask.size(), 64);
        Loops.binary(ElementType.BOOL, Op.ASSIGN, copy, StridedLayout.contiguous(mask.layout().shape()), mask.mem(), mask.layout());
        return copy;
    }

    private static StridedLayout layoutOf(ArrayCore a, ArrayCore mask) {
        return mask.id() != a.id() ? mask.layout() : StridedLayout.contiguous(mask.layout().shape());
    }

    private static void checkMask(ArrayCore a, ArrayCore mask, String what) {
        if (!mask.type().isBool()) {
            throw new DTypeMismatchException(what + ": the mask holds " + mask.dtype() + ", not BOOL; compare to get one, as in a.gt(0.5)");
        }
        if (!Arrays.equals(mask.layout().shape(), a.layout().shape())) {
            throw new ShapeMismatchException(what + ": the mask's shape " + Arrays.toString(mask.layout().shape())
                    + " differs from the array's " + Arrays.toString(a.layout().shape()));
        }
    }
}
