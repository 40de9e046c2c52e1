package dev.sharedarrays.internal.array;

import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.ShapeMismatchException;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * In-place arithmetic with numpy's rules: integer scalars must fit the element type (numpy 2),
 * a float scalar for an integer array must be a whole number (same_kind casting), integer
 * division by zero is refused before anything is written, and an operand that overlaps its
 * target is read through a temporary copy. The caller holds the locks.
 */
public final class InPlace {
    private InPlace() {
    }

    /** element = element (op) value. */
    public static void scalar(ElementType t, Op op, MemorySegment d, StridedLayout l, double value) {
        checkArithmetic(t, op);
        if (t.isFloatingPoint()) {
            Loops.scalar(t, op, d, l, value, 0);
            return;
        }
        scalar(t, op, d, l, whole(t, op, value, true));
    }

    /** element = element (op) value; integer arrays wrap. */
    public static void scalar(ElementType t, Op op, MemorySegment d, StridedLayout l, long value) {
        checkScalar(t, op, value);
        Loops.scalar(t, op, d, l, (double) value, value);
    }

    /**
     * A float scalar for an out-of-place integer operation as the integer it must be.
     *
     * @throws DTypeMismatchException if it is not a whole number (numpy would give float64)
     */
    public static long wholeOperand(ElementType t, Op op, double value) {
        return whole(t, op, value, false);
    }

    private static long whole(ElementType t, Op op, double value, boolean inPlace) {
        if (value != Math.rint(value) || Double.isInfinite(value)) {
            throw new DTypeMismatchException("cannot " + op.verb() + " " + t + " elements by the float " + value + (inPlace
                    ? " in place (numpy refuses too: same_kind casting); pass a whole number"
                    : " (numpy would give float64): call astype(F64.TYPE) first, or pass a whole number"));
        }
        return ElementCodec.toLongBits(t, value);
    }

    /** The rules of {@link #scalar(ElementType, Op, MemorySegment, StridedLayout, long)} for a scalar. */
    public static void checkScalar(ElementType t, Op op, long value) {
        checkArithmetic(t, op);
        if (!t.isFloatingPoint()) {
            checkRange(t, value);
            if (op == Op.DIV && value == 0) {
                throw new ArithmeticException("integer division by zero: " + t + " array divided by 0; nothing was written");
            }
        }
    }

    /**
     * BOOL arrays copy but have no arithmetic.
     *
     * @throws DTypeMismatchException if {@code t.isBool() && op != Op.ASSIGN}
     */
    public static void checkArithmetic(ElementType t, Op op) {
        if (t.isBool() && op != Op.ASSIGN) {
            throw new DTypeMismatchException("cannot " + op.verb() + " BOOL arrays: Bool has no arithmetic; use the logical"
                    + " and/or/xor/not, or convert to a number type first");
        }
    }

    /**
     * A scalar for an integer type must fit it.
     *
     * @throws IllegalArgumentException if {@code v < t.minValue() || v > t.maxValue()}
     */
    public static void checkRange(ElementType t, long v) {
        if (!t.isFloatingPoint() && (v < t.minValue() || v > t.maxValue())) {
            throw new IllegalArgumentException("scalar " + v + " is out of range for " + t + " (" + t.minValue() + " to "
                    + t.maxValue() + "); numpy 2 refuses it too");
        }
    }

    /**
     * The layout to read b through for {@code a (op)= b}: b's broadcast to a's shape by numpy's
     * rule (b may have fewer axes, and axes of length 1 stretch), or b's reshaped to a's when
     * both are contiguous with as many elements.
     *
     * @throws DTypeMismatchException if {@code at != bt}, or if they are BOOL and op is arithmetic
     * @throws ShapeMismatchException if b's shape neither broadcasts to a's nor has as many elements
     */
    public static StridedLayout operand(Op op, ElementType at, StridedLayout la, ElementType bt, StridedLayout lb) {
        checkArithmetic(at, op);
        if (at != bt) {
            throw new DTypeMismatchException("cannot " + op.verb() + " a " + bt + " array into a " + at
                    + " array: dtypes differ (" + at.descr() + " vs " + bt.descr() + "); convert one with astype");
        }
        StridedLayout broadcast = lb.broadcastTo(la.shape());
        if (broadcast != null) {
            return broadcast;
        }
        boolean contiguous = la.isContiguous() && lb.isContiguous();
        if (contiguous && la.size() == lb.size()) {
            return lb.reshape(la.shape());
        }
        throw new ShapeMismatchException("cannot " + op.verb() + " arrays of shapes " + Arrays.toString(la.shape())
                + " and " + Arrays.toString(lb.shape()) + " in place: the right side must broadcast to the left's shape"
                + " (numpy's rule: trailing dimensions equal or 1)");
    }

    /** a = a (op) b element by element (same shapes); {@code sameArray} if both view one array. */
    public static void binary(ElementType t, Op op, MemorySegment a, StridedLayout la, MemorySegment b, StridedLayout lb,
                              boolean sameArray) {
        checkOperand(t, op, b, lb);
        if (sameArray && overlaps(la, lb) && !la.equals(lb)) {
            // as numpy does: read the operand through a temporary copy when the two views overlap
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment tmp = arena.allocate(la.size() * t.itemSize(), 64);
                StridedLayout lt = StridedLayout.contiguous(lb.shape());
                Loops.binary(t, Op.ASSIGN, tmp, lt, b, lb);
                Loops.binary(t, op, a, la, tmp, lt);
            }
            return;
        }
        Loops.binary(t, op, a, la, b, lb);
    }

    /**
     * The rules of {@link #binary} for the operand b of {@code a (op) b}: Bool has no arithmetic,
     * and an integer divisor has no zero element.
     */
    public static void checkOperand(ElementType t, Op op, MemorySegment b, StridedLayout lb) {
        checkArithmetic(t, op);
        if (op == Op.DIV && !t.isFloatingPoint() && Loops.anyZero(t, b, lb)) {
            throw new ArithmeticException("integer division by zero: the divisor " + t + " array has a zero element; nothing was written");
        }
    }

    private static boolean overlaps(StridedLayout x, StridedLayout y) {
        long[] ex = x.extent();
        long[] ey = y.extent();
        return ex[0] <= ey[1] && ey[0] <= ex[1];
    }
}
