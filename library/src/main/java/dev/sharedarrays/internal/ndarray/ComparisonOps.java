package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.Bool;
import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.internal.array.MaskOps;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.Cmp;
import dev.sharedarrays.internal.kernel.Logic;
import java.util.Locale;

/** The work of {@code Comparisons} and {@code Logical}: new Bool arrays, element by element, broadcast. */
public final class ComparisonOps {
    private ComparisonOps() {
    }

    public static ArrayCore compare(ArrayCore a, Cmp c, double value) {
        return Elementwise.reading(() -> ArrayCore.filled(ArrayCore.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.compareScalar(a.type(), c, a.mem(), a.layout(), out.mem(), out.layout(), value)), a);
    }

    public static ArrayCore compare(ArrayCore a, Cmp c, long value) {
        return Elementwise.reading(() -> ArrayCore.filled(ArrayCore.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.compareScalar(a.type(), c, a.mem(), a.layout(), out.mem(), out.layout(), value)), a);
    }

    public static ArrayCore compare(ArrayCore a, Cmp c, ArrayCore other) {
        if (other.type() != a.type()) {
            throw new DTypeMismatchException("cannot compare a " + a.dtype() + " array with a " + other.dtype() + " array ("
                    + a.dtype().descr() + " vs " + other.dtype().descr() + "): convert one first");
        }
        long[] shape = Elementwise.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            StridedLayout la = a.layout().broadcastTo(shape);
            StridedLayout lb = other.layout().broadcastTo(shape);
            return ArrayCore.filled(ArrayCore.empty(Bool.TYPE, shape),
                    out -> MaskOps.compare(a.type(), c, a.mem(), la, other.mem(), lb, out.mem(), out.layout()));
        }, a, other);
    }

    public static ArrayCore not(ArrayCore a) {
        checkBool(a, "not");
        return Elementwise.reading(() -> ArrayCore.filled(ArrayCore.empty(Bool.TYPE, a.layout().shape()),
                out -> MaskOps.logical(Logic.NOT, a.mem(), a.layout(), a.mem(), a.layout(), out.mem(), out.layout())), a);
    }

    public static ArrayCore logical(ArrayCore a, Logic op, ArrayCore other) {
        String name = op.name().toLowerCase(Locale.ROOT);
        checkBool(a, name);
        checkBool(other, name);
        long[] shape = Elementwise.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            StridedLayout la = a.layout().broadcastTo(shape);
            StridedLayout lb = other.layout().broadcastTo(shape);
            return ArrayCore.filled(ArrayCore.empty(Bool.TYPE, shape),
                    out -> MaskOps.logical(op, a.mem(), la, other.mem(), lb, out.mem(), out.layout()));
        }, a, other);
    }

    private static void checkBool(ArrayCore a, String op) {
        if (!a.type().isBool()) {
            throw new DTypeMismatchException(op + "() is for Bool arrays, this one holds " + a.dtype()
                    + "; compare it first, as in a.ne(0)");
        }
    }
}
