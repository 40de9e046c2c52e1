package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.FactoryOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;


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
        return SharedNDArray.of(ArrayCore.zeros(dtype, shape.clone()));
    }

    /** An array of ones, numpy's {@code ones(shape, dtype)}. */
    public static <T extends DType<T>> SharedNDArray<T> ones(T dtype, long... shape) {
        return full(dtype, 1L, shape);
    }

    /**
     * An array with every element {@code value}, numpy's {@code full(shape, value, dtype)}; a Bool
     * array holds whether {@code value != 0}.
     *
     * @throws IllegalArgumentException if {@code dtype} is an integer type that cannot hold {@code value}
     */
    public static <T extends DType<T>> SharedNDArray<T> full(T dtype, long value, long... shape) {
        return SharedNDArray.of(FactoryOps.full(dtype, value, shape.clone()));
    }

    /**
     * An array with every element {@code value}; integer types take it truncated toward zero, as
     * numpy's {@code full} does, and Bool whether it is nonzero (NaN too, as numpy's bool(nan)).
     *
     * @throws IllegalArgumentException if {@code dtype} is an integer type and {@code value} is NaN,
     *         infinite or, truncated, outside the type's range
     */
    public static <T extends DType<T>> SharedNDArray<T> full(T dtype, double value, long... shape) {
        return SharedNDArray.of(FactoryOps.full(dtype, value, shape.clone()));
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
        return SharedNDArray.of(FactoryOps.arange(start, stop, step));
    }

    /**
     * {@code start, start + step, ...} below {@code stop} (above it for a negative step) as F64,
     * numpy's {@code arange} of floats bit for bit: {@code ceil((stop - start) / step)} elements,
     * element i ({@code i >= 2}) is {@code start + i * ((start + step) - start)}.
     *
     * @throws IllegalArgumentException if an argument is not finite, {@code step == 0} or the range is empty
     */
    public static SharedNDArray<F64> arange(double start, double stop, double step) {
        return SharedNDArray.of(FactoryOps.arange(start, stop, step));
    }

    /**
     * {@code num} evenly spaced values from {@code start} to {@code stop} inclusive as F64, numpy's
     * {@code linspace} bit for bit: element i is {@code i * step + start} with
     * {@code step = (stop - start) / (num - 1)}, and the last is {@code stop}.
     *
     * @throws IllegalArgumentException if {@code num < 1}
     */
    public static SharedNDArray<F64> linspace(double start, double stop, long num) {
        return SharedNDArray.of(FactoryOps.linspace(start, stop, num));
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
        return SharedNDArray.of(FactoryOps.concatenate(cores(arrays, "concatenate"), axis));
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
        return SharedNDArray.of(FactoryOps.stack(cores(arrays, "stack"), axis));
    }

    private static List<ArrayCore> cores(List<? extends SharedNDArray<?>> arrays, String what) {
        Objects.requireNonNull(arrays, "arrays");
        List<ArrayCore> cores = new ArrayList<>(arrays.size());
        for (SharedNDArray<?> a : arrays) {
            cores.add(Objects.requireNonNull(a, "an array to " + what + " is null").core());
        }
        return cores;
    }
}
