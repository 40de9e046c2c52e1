package dev.sharedarrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Joining;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * numpy's array constructors: {@code zeros ones full arange linspace}, {@code concatenate} and
 * {@code stack}, and a seeded {@link #random(long) random} generator. Every result is a new
 * process-local array: anonymous memory the garbage collector frees, nothing to close, no file in
 * the shm directory; {@code share()} copies one into a segment other processes can attach.
 * Shapes are given as numpy's, one length per axis (1 to 8 axes, each at least 1). Methods are
 * thread-safe; {@code concatenate} and {@code stack} read each input under its read lock.
 */
public final class NDArrays {
    private NDArrays() {
    }

    /** A zero-filled array, numpy's {@code zeros(shape, dtype)}. */
    public static <T extends DType<T>> SharedNDArray<T> zeros(T dtype, long... shape) {
        return Local.zeros(dtype, shape.clone());
    }

    /** An array of ones, numpy's {@code ones(shape, dtype)}. */
    public static <T extends DType<T>> SharedNDArray<T> ones(T dtype, long... shape) {
        return full(dtype, 1L, shape);
    }

    /**
     * An array with every element {@code value}, numpy's {@code full(shape, value, dtype)}.
     *
     * @throws IllegalArgumentException if {@code dtype} is an integer type that cannot hold {@code value}
     */
    public static <T extends DType<T>> SharedNDArray<T> full(T dtype, long value, long... shape) {
        InPlace.checkRange(dtype.elementType(), value);
        SharedNDArray<T> out = Local.empty(dtype, shape.clone());
        out.fill(value);
        return out;
    }

    /**
     * An array with every element {@code value}; integer types take it truncated toward zero, as
     * numpy's {@code full} does.
     *
     * @throws IllegalArgumentException if {@code dtype} is an integer type and {@code value} is NaN,
     *         infinite or, truncated, outside the type's range
     */
    public static <T extends DType<T>> SharedNDArray<T> full(T dtype, double value, long... shape) {
        if (!dtype.isFloatingPoint()) {
            double whole = value < 0 ? Math.ceil(value) : Math.floor(value);
            ElementType t = dtype.elementType();
            double above = t.itemSize() == 8 ? (t.isUnsigned() ? 0x1p64 : 0x1p63) : t.maxValue() + 1.0;
            if (!(whole >= t.minValue() && whole < above)) {
                throw new IllegalArgumentException("cannot fill a " + dtype + " array with " + value + ": it is "
                        + (Double.isFinite(value) ? "out of the type's range" : "not a finite number"));
            }
        }
        SharedNDArray<T> out = Local.empty(dtype, shape.clone());
        out.fill(value);
        return out;
    }

    /** {@code 0, 1, ..., stop - 1} as I64, numpy's {@code arange(stop)}; as {@link #arange(long, long, long)}. */
    public static SharedNDArray<I64> arange(long stop) {
        return arange(0, stop, 1);
    }

    /** {@code start, start + 1, ...} below {@code stop} as I64; as {@link #arange(long, long, long)}. */
    public static SharedNDArray<I64> arange(long start, long stop) {
        return arange(start, stop, 1);
    }

    /**
     * {@code start, start + step, ...} up to but excluding {@code stop}, as I64: numpy's
     * {@code arange} of integers (its length computed exactly).
     *
     * @throws IllegalArgumentException if {@code step == 0} or the range is empty (arrays have at least one element)
     */
    public static SharedNDArray<I64> arange(long start, long stop, long step) {
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
        SharedNDArray<I64> out = Local.empty(I64.TYPE, new long[] {n});
        MemorySegment d = out.mem();
        for (long i = 0; i < n; i++) {
            d.setAtIndex(JAVA_LONG, i, start + i * step);
        }
        return out;
    }

    /**
     * {@code start, start + step, ...} below {@code stop} (above it for a negative step) as F64,
     * numpy's {@code arange} of floats bit for bit: {@code ceil((stop - start) / step)} elements,
     * element i ({@code i >= 2}) is {@code start + i * ((start + step) - start)}.
     *
     * @throws IllegalArgumentException if an argument is not finite, {@code step == 0} or the range is empty
     */
    public static SharedNDArray<F64> arange(double start, double stop, double step) {
        double length = Math.ceil((stop - start) / step);
        if (!Double.isFinite(start) || !Double.isFinite(stop) || !Double.isFinite(step) || step == 0 || !(length >= 1)) {
            throw new IllegalArgumentException("arange(" + start + ", " + stop + ", " + step + ") " + (step == 0 ? "has step 0"
                    : length < 1 ? "is empty" : "needs finite arguments") + "; arrays have at least one element");
        }
        long n = (long) length;
        SharedNDArray<F64> out = Local.empty(F64.TYPE, new long[] {n});
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

    /**
     * {@code num} evenly spaced values from {@code start} to {@code stop} inclusive as F64, numpy's
     * {@code linspace} bit for bit: element i is {@code i * step + start} with
     * {@code step = (stop - start) / (num - 1)}, and the last is {@code stop}.
     *
     * @throws IllegalArgumentException if {@code num < 1}
     */
    public static SharedNDArray<F64> linspace(double start, double stop, long num) {
        if (num < 1) {
            throw new IllegalArgumentException("linspace needs num >= 1, got " + num + "; arrays have at least one element");
        }
        SharedNDArray<F64> out = Local.empty(F64.TYPE, new long[] {num});
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

    /** A generator of random arrays whose values depend on {@code seed} alone: the same seed gives the same arrays in any run. */
    public static ArrayRandom random(long seed) {
        return new ArrayRandom(seed);
    }

    /** {@link #concatenate(List, int)} along axis 0. */
    public static <T extends DType<T>> SharedNDArray<T> concatenate(List<SharedNDArray<T>> arrays) {
        return concatenate(arrays, 0);
    }

    /**
     * The arrays joined along an existing {@code axis} (negative counts from the end), numpy's
     * {@code concatenate(arrays, axis)}: their shapes must be equal except along that axis.
     *
     * @throws IllegalArgumentException if {@code arrays} is empty
     * @throws DTypeMismatchException if the arrays' dtypes differ
     * @throws ShapeMismatchException naming every shape if they do not fit together
     * @throws IndexOutOfBoundsException if the axis is outside the arrays' dimensions
     */
    public static <T extends DType<T>> SharedNDArray<T> concatenate(List<SharedNDArray<T>> arrays, int axis) {
        Joining.Joined j = Joining.concatenate(shapes(arrays, "concatenate"), axis);
        long[] pos = {0};
        return join(arrays, (result, i, a) -> {
            long start = pos[0];
            pos[0] += a.layout().shape()[j.axis()];
            return result.slice(j.axis(), start, pos[0], 1);
        }, j.shape());
    }

    /** {@link #stack(List, int)} along a new first axis. */
    public static <T extends DType<T>> SharedNDArray<T> stack(List<SharedNDArray<T>> arrays) {
        return stack(arrays, 0);
    }

    /**
     * The arrays, all of one shape, joined along a new {@code axis} of the result (negative counts
     * from the end of the result's axes), numpy's {@code stack(arrays, axis)}.
     *
     * @throws IllegalArgumentException if {@code arrays} is empty or the result would have more than 8 dimensions
     * @throws DTypeMismatchException if the arrays' dtypes differ
     * @throws ShapeMismatchException naming every shape if they differ
     * @throws IndexOutOfBoundsException if {@code axis < -(ndim + 1) || axis > ndim}
     */
    public static <T extends DType<T>> SharedNDArray<T> stack(List<SharedNDArray<T>> arrays, int axis) {
        Joining.Joined j = Joining.stack(shapes(arrays, "stack"), axis);
        return join(arrays, (result, i, a) -> result.select(j.axis(), i), j.shape());
    }

    /** Where the i-th input goes in the result's layout. */
    private interface Part {
        StridedLayout of(StridedLayout result, int i, SharedNDArray<?> input);
    }

    private static List<long[]> shapes(List<? extends SharedNDArray<?>> arrays, String what) {
        Objects.requireNonNull(arrays, "arrays");
        List<long[]> shapes = new ArrayList<>(arrays.size());
        for (SharedNDArray<?> a : arrays) {
            shapes.add(Objects.requireNonNull(a, "an array to " + what + " is null").layout().shape());
        }
        for (SharedNDArray<?> a : arrays) {
            if (a.type() != arrays.get(0).type()) {
                throw new DTypeMismatchException("cannot " + what + " arrays of dtypes " + arrays.stream().map(x -> x.dtype().name())
                        .collect(Collectors.joining(", ")) + ": they need one dtype; convert with astype first");
            }
        }
        return shapes;
    }

    private static <T extends DType<T>> SharedNDArray<T> join(List<SharedNDArray<T>> arrays, Part part, long[] shape) {
        SharedNDArray<T> out = Local.empty(arrays.get(0).dtype(), shape);
        MemorySegment d = out.mem();
        for (int i = 0; i < arrays.size(); i++) {
            SharedNDArray<T> a = arrays.get(i);
            StridedLayout target = part.of(out.layout(), i, a);
            a.locks().read(() -> {
                Loops.binary(a.type(), Op.ASSIGN, d, target, a.mem(), a.layout());
                return null;
            });
        }
        return out;
    }
}
