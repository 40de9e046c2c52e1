package dev.sharedarrays.internal.ndarray;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sharedarrays.DType;
import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.F64;
import dev.sharedarrays.I64;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Joining;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The work of {@code NDArrays}: new process-local arrays, filled, counted, spaced or joined. */
public final class FactoryOps {
    private FactoryOps() {
    }

    public static ArrayCore full(DType<?> dtype, long value, long... shape) {
        if (!dtype.isBool()) {
            InPlace.checkRange(ArrayCore.typeOf(dtype), value);
        }
        ArrayCore out = ArrayCore.empty(dtype, shape.clone());
        BulkOps.fill(out, value);
        return out;
    }

    public static ArrayCore full(DType<?> dtype, double value, long... shape) {
        if (!dtype.isFloatingPoint() && !dtype.isBool()) {
            double whole = value < 0 ? Math.ceil(value) : Math.floor(value);
            ElementType t = ArrayCore.typeOf(dtype);
            double above = t.itemSize() == 8 ? (t.isUnsigned() ? 0x1p64 : 0x1p63) : t.maxValue() + 1.0;
            if (!(whole >= t.minValue() && whole < above)) {
                throw new IllegalArgumentException("cannot fill a " + dtype + " array with " + value + ": it is "
                        + (Double.isFinite(value) ? "out of the type's range" : "not a finite number"));
            }
        }
        ArrayCore out = ArrayCore.empty(dtype, shape.clone());
        BulkOps.fill(out, value);
        return out;
    }

    public static ArrayCore arange(long start, long stop, long step) {
        long n = 0;
        boolean overflow = false;
        try {
            n = step == 0 ? 0 : Math.ceilDiv(Math.subtractExact(stop, start), step);
        } catch (ArithmeticException e) {
            overflow = true;
        }
        if (step == 0 || overflow || n < 1) {
            throw new IllegalArgumentException("arange(" + start + ", " + stop + ", " + step + ") " + (step == 0 ? "has step 0"
                    : overflow ? "spans more than a long" : "is empty") + "; arrays have at least one element");
        }
        ArrayCore out = ArrayCore.empty(I64.TYPE, new long[] {n});
        MemorySegment d = out.mem();
        for (long i = 0; i < n; i++) {
            d.setAtIndex(JAVA_LONG, i, start + i * step);
        }
        return out;
    }

    public static ArrayCore arange(double start, double stop, double step) {
        double length = Math.ceil((stop - start) / step);
        if (!Double.isFinite(start) || !Double.isFinite(stop) || !Double.isFinite(step) || step == 0 || !(length >= 1)) {
            throw new IllegalArgumentException("arange(" + start + ", " + stop + ", " + step + ") " + (step == 0 ? "has step 0"
                    : length < 1 ? "is empty" : "needs finite arguments") + "; arrays have at least one element");
        }
        long n = (long) length;
        ArrayCore out = ArrayCore.empty(F64.TYPE, new long[] {n});
        MemorySegment d = out.mem();
        double delta = (start + step) - start;
        d.setAtIndex(JAVA_DOUBLE, 0, start);
        if (n > 1) {
            d.setAtIndex(JAVA_DOUBLE, 1, start + step);
        }
        for (long i = 2; i < n; i++) {
            d.setAtIndex(JAVA_DOUBLE, i, start + i * delta);
        }
        return out;
    }

    public static ArrayCore linspace(double start, double stop, long num) {
        if (num < 1) {
            throw new IllegalArgumentException("linspace needs num >= 1, got " + num + "; arrays have at least one element");
        }
        ArrayCore out = ArrayCore.empty(F64.TYPE, new long[] {num});
        MemorySegment d = out.mem();
        double delta = stop - start;
        long div = num - 1;
        double step = div > 0 ? delta / div : Double.NaN;
        for (long i = 0; i < num; i++) {
            double y = div == 0 ? i * delta : step == 0 ? (double) i / div * delta : i * step;
            d.setAtIndex(JAVA_DOUBLE, i, y + start);
        }
        if (num > 1) {
            d.setAtIndex(JAVA_DOUBLE, num - 1, stop);
        }
        return out;
    }

    public static ArrayCore concatenate(List<ArrayCore> arrays, int axis) {
        Joining.Joined j = Joining.concatenate(shapes(arrays, "concatenate"), axis);
        long[] pos = {0};
        return join(arrays, (result, i, a) -> {
            long start = pos[0];
            pos[0] += a.layout().shape()[j.axis()];
            return result.slice(j.axis(), start, pos[0], 1);
        }, j.shape());
    }

    public static ArrayCore stack(List<ArrayCore> arrays, int axis) {
        Joining.Joined j = Joining.stack(shapes(arrays, "stack"), axis);
        return join(arrays, (result, i, a) -> result.select(j.axis(), i), j.shape());
    }

    /** Where the i-th input goes in the result's layout. */
    private interface Part {
        StridedLayout of(StridedLayout result, int i, ArrayCore input);
    }

    private static List<long[]> shapes(List<ArrayCore> arrays, String what) {
        List<long[]> shapes = new ArrayList<>(arrays.size());
        for (ArrayCore a : arrays) {
            shapes.add(a.layout().shape());
        }
        for (ArrayCore a : arrays) {
            if (a.type() != arrays.get(0).type()) {
                throw new DTypeMismatchException("cannot " + what + " arrays of dtypes " + arrays.stream().map(x -> x.dtype().name())
                        .collect(Collectors.joining(", ")) + ": they need one dtype; convert with astype first");
            }
        }
        return shapes;
    }

    private static ArrayCore join(List<ArrayCore> arrays, Part part, long[] shape) {
        ArrayCore out = ArrayCore.empty(arrays.get(0).dtype(), shape);
        MemorySegment d = out.mem();
        for (int i = 0; i < arrays.size(); i++) {
            ArrayCore a = arrays.get(i);
            StridedLayout target = part.of(out.layout(), i, a);
            a.locks().read(() -> {
                Loops.binary(a.type(), Op.ASSIGN, d, target, a.mem(), a.layout());
                return null;
            });
        }
        return out;
    }
}
