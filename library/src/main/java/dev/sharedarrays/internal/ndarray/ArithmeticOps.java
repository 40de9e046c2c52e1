package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.internal.array.InPlace;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;

/** The work of {@code Arithmetic} (numpy's out-of-place {@code a + b}) and {@code InPlaceArithmetic}. */
public final class ArithmeticOps {
    private ArithmeticOps() {
    }

    /** a (op) b, broadcast, into a new process-local array. */
    public static ArrayCore combine(Op op, ArrayCore a, ArrayCore other) {
        if (a.type() != other.type()) {
            throw new DTypeMismatchException("cannot " + op.verb() + " a " + other.dtype() + " array and a " + a.dtype()
                    + " array: dtypes differ (" + other.dtype().descr() + " vs " + a.dtype().descr() + "); convert one with astype");
        }
        long[] shape = Shapes.broadcast(a.layout().shape(), other.layout().shape());
        return Elementwise.reading(() -> {
            a.checkOpen();
            other.checkOpen();
            StridedLayout lb = other.layout().broadcastTo(shape);
            InPlace.checkOperand(a.type(), op, other.mem(), lb);
            ArrayCore out = ArrayCore.empty(a.dtype(), shape);
            Loops.binaryInto(a.type(), op, out.mem(), out.layout(), a.mem(), a.layout().broadcastTo(shape), other.mem(), lb);
            return out;
        }, a, other);
    }

    /** a (op) the scalar: lv if isLong, else dv; checked before the result is made. */
    public static ArrayCore withScalar(ArrayCore a, Op op, double dv, long lv, boolean isLong) {
        ElementType t = a.type();
        InPlace.checkArithmetic(t, op);
        long l = isLong || t.isFloatingPoint() ? lv : InPlace.wholeOperand(t, op, dv);
        InPlace.checkScalar(t, op, l);
        double d = isLong ? lv : dv;
        return a.locks().read(() -> {
            a.checkOpen();
            ArrayCore out = ArrayCore.empty(a.dtype(), a.layout().shape());
            Loops.scalarInto(t, op, out.mem(), out.layout(), a.mem(), a.layout(), d, l);
            return out;
        });
    }

    /** value (op) a, numpy's reflected operation: lv if isLong, else dv. */
    public static ArrayCore reflected(ArrayCore a, Op op, double dv, long lv, boolean isLong) {
        ElementType t = a.type();
        InPlace.checkArithmetic(t, op);
        long l = isLong || t.isFloatingPoint() ? lv : InPlace.wholeOperand(t, op, dv);
        InPlace.checkRange(t, l);
        double d = isLong ? lv : dv;
        return a.locks().read(() -> {
            a.checkOpen();
            InPlace.checkOperand(t, op, a.mem(), a.layout()); // a is the divisor
            ArrayCore out = ArrayCore.empty(a.dtype(), a.layout().shape());
            Loops.reflectedInto(t, op, out.mem(), out.layout(), d, l, a.mem(), a.layout());
            return out;
        });
    }

    /** -a: floats flip their sign (-0.0 too), integers wrap (numpy's negative). */
    public static ArrayCore negate(ArrayCore a) {
        return a.type().isFloatingPoint() ? withScalar(a, Op.MUL, -1.0, 0, false) : reflected(a, Op.SUB, 0, 0, true);
    }
}
