package dev.sharedarrays;

import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.Logic;

/**
 * Element-wise logic of {@link Bool} arrays, as numpy's {@code m1 & m2}, {@code m1 | m2},
 * {@code m1 ^ m2} and {@code ~m}: each returns a new process-local Bool array of the (broadcast)
 * shape. Kotlin calls them as {@code m1 and m2}, {@code m1 or m2}, {@code m1 xor m2} and
 * {@code !m}. The operands are read under their read locks (taken in the order of array id).
 *
 * @param <T> the element type marker: these methods are for {@code SharedNDArray<Bool>}
 */
public sealed interface Logical<T extends DType<T>> permits SharedNDArray {

    private SharedNDArray<T> self() {
        return (SharedNDArray<T>) this;
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
        SharedNDArray<T> a = self();
        checkBool(a, "not");
        return Elementwise.reading(() -> SharedNDArray.filled(Local.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.logical(Logic.NOT, a.mem(), a.layout(), a.mem(), a.layout(), out.mem(), out.layout())), a);
    }

    private SharedNDArray<Bool> logical(Logic op, SharedNDArray<Bool> other) {
        SharedNDArray<T> a = self();
        String name = op.name().toLowerCase(java.util.Locale.ROOT);
        checkBool(a, name);
        checkBool(other, name);
        long[] shape = Elementwise.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            StridedLayout la = a.layout().broadcastTo(shape);
            StridedLayout lb = other.layout().broadcastTo(shape);
            return SharedNDArray.filled(Local.empty(Bool.TYPE, shape),
                    out -> MaskOps.logical(op, a.mem(), la, other.mem(), lb, out.mem(), out.layout()));
        }, a, other);
    }

    private static void checkBool(SharedNDArray<?> a, String op) {
        if (!a.type().isBool()) {
            throw new DTypeMismatchException(op + "() is for Bool arrays, this one holds " + a.dtype()
                    + "; compare it first, as in a.ne(0)");
        }
    }
}
