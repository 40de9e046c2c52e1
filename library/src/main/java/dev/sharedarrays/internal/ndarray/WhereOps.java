package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.Bool;
import dev.sharedarrays.DType;
import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.F64;
import dev.sharedarrays.I64;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/** The work of {@code Masks}: numpy's {@code where}, into new process-local arrays. */
public final class WhereOps {
    private WhereOps() {
    }

    public static ArrayCore where(ArrayCore mask, ArrayCore x, ArrayCore y) {
        checkMask(mask);
        if (x.type() != y.type()) {
            throw new DTypeMismatchException("where(mask, x, y): x holds " + x.dtype() + ", y " + y.dtype() + " ("
                    + x.dtype().descr() + " vs " + y.dtype().descr() + "); convert one first");
        }
        long[] shape = Elementwise.broadcast(mask.layout().shape(), x.layout().shape(), y.layout().shape());
        return Elementwise.reading(() -> ArrayCore.filled(ArrayCore.empty(x.dtype(), shape), out -> MaskOps.where(x.itemSize(),
                mask.mem(), mask.layout().broadcastTo(shape), x.mem(), x.layout().broadcastTo(shape),
                y.mem(), y.layout().broadcastTo(shape), out.mem(), out.layout())), mask, x, y);
    }

    public static ArrayCore where(ArrayCore mask, ArrayCore x, double y) {
        return withScalar(mask, x, scalar(x.type(), y), false);
    }

    public static ArrayCore where(ArrayCore mask, double x, ArrayCore y) {
        return withScalar(mask, y, scalar(y.type(), x), true);
    }

    public static ArrayCore where(ArrayCore mask, ArrayCore x, long y) {
        return withScalar(mask, x, scalar(x.type(), y), false);
    }

    public static ArrayCore where(ArrayCore mask, long x, ArrayCore y) {
        return withScalar(mask, y, scalar(y.type(), x), true);
    }

    public static ArrayCore where(ArrayCore mask, double x, double y) {
        return scalars(mask, F64.TYPE, d -> ElementCodec.setDouble(ElementType.F64, d, 0, x), d -> ElementCodec.setDouble(ElementType.F64, d, 0, y));
    }

    public static ArrayCore where(ArrayCore mask, long x, long y) {
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

    private static ArrayCore withScalar(ArrayCore mask, ArrayCore array,
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
                return ArrayCore.filled(ArrayCore.empty(array.dtype(), shape), out -> {
                    if (scalarIsX) {
                        MaskOps.where(size, mask.mem(), lm, s, ls, array.mem(), la, out.mem(), out.layout());
                    } else {
                        MaskOps.where(size, mask.mem(), lm, array.mem(), la, s, ls, out.mem(), out.layout());
                    }
                });
            }
        }, mask, array);
    }

    private static ArrayCore scalars(ArrayCore mask, DType<?> dtype, Consumer<MemorySegment> x,
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
                return ArrayCore.filled(ArrayCore.empty(dtype, shape),
                        out -> MaskOps.where(8, mask.mem(), mask.layout(), xs, ls, ys, ls, out.mem(), out.layout()));
            }
        }, mask);
    }

    private static void checkMask(ArrayCore mask) {
        if (!mask.type().isBool()) {
            throw new DTypeMismatchException("where: the mask holds " + mask.dtype() + ", not BOOL; compare to get one, as in a.gt(0.5)");
        }
    }
}
