package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.Logic;
import dev.sharedarrays.internal.ndarray.ArrayCore;
import dev.sharedarrays.internal.ndarray.ComparisonOps;

/**
 * Element-wise logic of {@link Bool} arrays, as numpy's {@code m1 & m2}, {@code m1 | m2},
 * {@code m1 ^ m2} and {@code ~m}: each returns a new process-local Bool array of the (broadcast)
 * shape. Kotlin calls them as {@code m1 and m2}, {@code m1 or m2}, {@code m1 xor m2} and
 * {@code !m}. The operands are read under their read locks (taken in the order of array id).
 *
 * @param <T> the element type marker: these methods are for {@code SharedNDArray<Bool>}
 */
public sealed interface Logical<T extends DType<T>> permits SharedNDArray {

    private ArrayCore core() {
        return ((SharedNDArray<T>) this).core();
    }

    /**
     * True where both are true.
     *
     * @throws DTypeMismatchException if either array is not a Bool array
     * @throws ShapeMismatchException if the shapes do not broadcast
     */
    default SharedNDArray<Bool> and(SharedNDArray<Bool> other) {
        return logical(Logic.AND, other);
    }

    /** True where either is true; as {@link #and}. */
    default SharedNDArray<Bool> or(SharedNDArray<Bool> other) {
        return logical(Logic.OR, other);
    }

    /** True where exactly one is true; as {@link #and}. */
    default SharedNDArray<Bool> xor(SharedNDArray<Bool> other) {
        return logical(Logic.XOR, other);
    }

    /**
     * True where this is false.
     *
     * @throws DTypeMismatchException if this is not a Bool array
     */
    default SharedNDArray<Bool> not() {
        return SharedNDArray.of(ComparisonOps.not(core()));
    }

    private SharedNDArray<Bool> logical(Logic op, SharedNDArray<Bool> other) {
        return SharedNDArray.of(ComparisonOps.logical(core(), op, other.core()));
    }
}
