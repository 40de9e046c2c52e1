package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * numpy's {@code where(mask, x, y)}: a new process-local array that holds x's element where the
 * {@link Bool} mask is true and y's where it is false. x and y are arrays of one dtype or
 * scalars; the mask and the arrays broadcast by numpy's rules. A scalar takes the other
 * operand's dtype: it must fit an integer type (a fractional one would make numpy's result
 * float64: convert the array first). The operands are read under their read locks (taken in the
 * order of array id). Kotlin: {@code where(mask, x, y)}. Masks come from comparisons
 * ({@link Comparisons}); masks index arrays through {@link Masking}.
 */
public final class Masks {
    private Masks() {
    }

    /**
     * x's element where mask is true, y's where it is false.
     *
     * @throws DTypeMismatchException if the mask is not Bool or x and y differ in dtype
     * @throws ShapeMismatchException if the shapes do not broadcast
     */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, SharedNDArray<T> y) {
        checkMask(mask);
        if (x.type() != y.type()) {
            throw new DTypeMismatchException("where(mask, x, y): x holds " + x.dtype() + ", y " + y.dtype() + " ("
                    + x.dtype().descr() + " vs " + y.dtype().descr() + "); convert one first");
        }
        long[] shape = Elementwise.broadcast(mask.layout().shape(), x.layout().shape(), y.layout().shape());
        return Elementwise.reading(() -> SharedNDArray.filled(Local.empty(x.dtype(), shape), out -> MaskOps.where(x.itemSize(),
                mask.mem(), mask.layout().broadcastTo(shape), x.mem(), x.layout().broadcastTo(shape),
                y.mem(), y.layout().broadcastTo(shape), out.mem(), out.layout())), mask, x, y);
    }

    /** x's element where mask is true, the scalar y where it is false; as {@link #where(SharedNDArray, SharedNDArray, SharedNDArray)}. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, double y) {
        return withScalar(mask, x, scalar(x.type(), y), false);
    }

    /** The scalar x where mask is true, y's element where it is false. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, double x, SharedNDArray<T> y) {
        return withScalar(mask, y, scalar(y.type(), x), true);
    }

    /**
     * x's element where mask is true, the integer scalar y where it is false.
     *
     * @throws IllegalArgumentException if y is out of range for x's integer type
     */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, SharedNDArray<T> x, long y) {
        return withScalar(mask, x, scalar(x.type(), y), false);
    }

    /** The integer scalar x where mask is true, y's element where it is false. */
    public static <T extends DType<T>> SharedNDArray<T> where(SharedNDArray<Bool> mask, long x, SharedNDArray<T> y) {
        return withScalar(mask, y, scalar(y.type(), x), true);
    }

    /** An F64 array of the mask's shape: x where it is true, y where it is false. */
    public static SharedNDArray<F64> where(SharedNDArray<Bool> mask, double x, double y) {
        return scalars(mask, F64.TYPE, d -> ElementCodec.setDouble(ElementType.F64, d, 0, x), d -> ElementCodec.setDouble(ElementType.F64, d, 0, y));
    }

    /** An I64 array of the mask's shape: x where it is true, y where it is false. */
    public static SharedNDArray<I64> where(SharedNDArray<Bool> mask, long x, long y) {
        return scalars(mask, I64.TYPE, d -> ElementCodec.setLong(ElementType.I64, d, 0, x), d -> ElementCodec.setLong(ElementType.I64, d, 0, y));
    }

    /** Stores a double scalar as an element of type t: floats rounded, integers only if whole and in range. */
    private static Consumer<MemorySegment> scalar(ElementType t, double v) {
        if (t.isFloatingPoint()) {
            return d -> ElementCodec.setDouble(t, d, 0, v);
        }
        if (v != Math.rint(v) || Double.isInfinite(v)) {
            throw new DTypeMismatchException("where: the scalar " + v + " is not a whole number, and the array holds " + t
                    + " (numpy's result would be float64); convert the array first, or pass a whole number");
        }
        boolean inRange = t.isUnsigned64() ? v >= 0 && v < 0x1p64
                : v >= -0x1p63 && v < 0x1p63 && (long) v >= t.minValue() && (long) v <= t.maxValue();
        if (!inRange) {
            throw new IllegalArgumentException("where: the scalar " + v + " is out of range for " + t + "; numpy 2 refuses it too");
        }
        long bits = ElementCodec.toLongBits(t, v);
        return d -> ElementCodec.setLong(t, d, 0, bits);
    }

    private static Consumer<MemorySegment> scalar(ElementType t, long v) {
        InPlace.checkRange(t, v);
        return d -> ElementCodec.setLong(t, d, 0, v);
    }

    private static <T extends DType<T>> SharedNDArray<T> withScalar(SharedNDArray<Bool> mask, SharedNDArray<T> array,
                                                                    Consumer<MemorySegment> store, boolean scalarIsX) {
        checkMask(mask);
        long[] shape = Elementwise.broadcast(mask.layout().shape(), array.layout().shape());
        return Elementwise.reading(() -> {
            int size = array.itemSize();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = arena.allocate(size, size);
                store.accept(s);
                StridedLayout ls = Elementwise.repeated(shape);
                StridedLayout la = array.layout().broadcastTo(shape);
                StridedLayout lm = mask.layout().broadcastTo(shape);
                return SharedNDArray.filled(Local.empty(array.dtype(), shape), out -> {
                    if (scalarIsX) {
                        MaskOps.where(size, mask.mem(), lm, s, ls, array.mem(), la, out.mem(), out.layout());
                    } else {
                        MaskOps.where(size, mask.mem(), lm, array.mem(), la, s, ls, out.mem(), out.layout());
                    }
                });
            }
        }, mask, array);
    }

    private static <T extends DType<T>> SharedNDArray<T> scalars(SharedNDArray<Bool> mask, T dtype, Consumer<MemorySegment> x,
                                                                 Consumer<MemorySegment> y) {
        checkMask(mask);
        long[] shape = mask.layout().shape();
        return Elementwise.reading(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment xs = arena.allocate(8, 8);
                MemorySegment ys = arena.allocate(8, 8);
                x.accept(xs);
                y.accept(ys);
                StridedLayout ls = Elementwise.repeated(shape);
                return SharedNDArray.filled(Local.empty(dtype, shape),
                        out -> MaskOps.where(8, mask.mem(), mask.layout(), xs, ls, ys, ls, out.mem(), out.layout()));
            }
        }, mask);
    }

    private static void checkMask(SharedNDArray<Bool> mask) {
        if (!mask.type().isBool()) {
            throw new DTypeMismatchException("where: the mask holds " + mask.dtype() + ", not BOOL; compare to get one, as in a.gt(0.5)");
        }
    }
}
