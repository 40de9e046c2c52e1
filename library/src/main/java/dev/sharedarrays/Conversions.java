package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.ConversionOps;

/**
 * Copies of a {@link SharedNDArray} into another element type or another kind of memory:
 * process-local arrays (anonymous memory the garbage collector frees, see {@link #isLocal()})
 * and shared ones (a segment other processes attach). Each copy takes the source's read lock.
 *
 * @param <T> the element type marker
 */
public sealed interface Conversions<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /**
     * True for a process-local array or a view of one: results of out-of-place operations,
     * per-axis reductions, {@link #astype}, {@code copy()}, the factories and
     * {@code SharedArrays.load(path)}. It has no file, and closing it is optional: the garbage
     * collector frees it, while {@code close()} (try-with-resources, Kotlin's {@code use}) gives
     * a large array's memory back at once, so that a loop of large temporaries reuses it without
     * waiting for a collection; its views and {@code data()} then fail cleanly. Other processes
     * cannot attach it; {@link #share()} copies it into one they can.
     */
    default boolean isLocal() {
        return core().isLocal();
    }

    /** A copy in a new shared array of this process's backend with a generated name, which the caller closes. */
    default SharedNDArray<T> share() {
        return share(CreateOptions.defaults());
    }

    /** A copy in a new shared array created as {@code options} say, which the caller closes. */
    default SharedNDArray<T> share(CreateOptions options) {
        return ((SharedNDArray<T>) this).copy(options);
    }

    /**
     * A process-local copy with elements of type {@code dtype}, by numpy's casts: floats to
     * integers truncate toward zero, integers wrap to the target's width, integers to floats
     * round to nearest. A copy even when {@code dtype == dtype()}.
     *
     * @throws ArithmeticException naming the first offending flat index if a float element is
     *         NaN, infinite or outside the integer target's range (numpy stores an undefined value)
     */
    default <U extends DType<U>> SharedNDArray<U> astype(U dtype) {
        return SharedNDArray.of(ConversionOps.astype(core(), dtype));
    }
}
