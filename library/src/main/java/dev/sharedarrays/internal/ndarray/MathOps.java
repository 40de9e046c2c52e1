package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.ShapeMismatchException;
import dev.sharedarrays.internal.array.ElementMath;
import dev.sharedarrays.internal.array.Parallel;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.MathOp;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The work of {@code ArrayMath}: numpy's element-wise functions into a new array (out null) or
 * into out, which is then the result.
 */
public final class MathOps {
    private MathOps() {
    }

    /** Each element of a limited to [lo, hi] (whole-number bounds for integer arrays). */
    public static ArrayCore clip(ArrayCore a, double lo, double hi, ArrayCore out) {
        if (a.type().isFloatingPoint()) {
            return unary(MathOp.CLIP, a, out, lo, hi);
        }
        for (double v : new double[] {lo, hi}) {
            if (v != Math.rint(v)) {
                throw new DTypeMismatchException("clip of " + a.dtype() + " elements to [" + lo + ", " + hi + "]: the bound " + v
                        + " is not a whole number (numpy would return float64); pass whole numbers, or convert first with a.astype(F64.TYPE)");
            }
        }
        return clip(a, (long) lo, (long) hi, out);
    }

    /** Each element of a limited to [lo, hi]; bounds outside an integer type's range where they change nothing. */
    public static ArrayCore clip(ArrayCore a, long lo, long hi, ArrayCore out) {
        ElementType t = a.type();
        if (t.isFloatingPoint()) {
            return unary(MathOp.CLIP, a, out, lo, hi);
        }
        if (t.isBool()) {
            throw new DTypeMismatchException("clip takes number arrays, not BOOL (" + t.descr() + "); convert first with a.astype(I64.TYPE)");
        }
        if (lo > t.maxValue() || hi < t.minValue()) {
            throw new IllegalArgumentException("clip of " + t + " elements to [" + lo + ", " + hi + "]: the bound "
                    + (lo > t.maxValue() ? lo : hi) + " is out of range for " + t + " (" + t.minValue() + " to " + t.maxValue()
                    + "); numpy refuses it too");
        }
        return integers(MathOp.CLIP, a, out, Math.max(lo, t.minValue()), Math.min(hi, t.maxValue()));
    }

    public static ArrayCore unary(MathOp op, ArrayCore a, ArrayCore out, double p, double q) {
        ElementType t = a.type();
        if (!t.isFloatingPoint()) {
            if (!op.takesIntegers() || !isInteger(t)) {
                throw new DTypeMismatchException(op.numpyName() + " takes F64 and F32 arrays, not " + t + " (" + t.descr()
                        + "); numpy would return float64: convert first with a.astype(F64.TYPE)");
            }
            return integers(op, a, out, 0, 0);
        }
        return run(op, a, out, (o, lo, in) -> ElementMath.unary(t, op, in, o, lo, p, q));
    }

    public static ArrayCore integers(MathOp op, ArrayCore a, ArrayCore out, long lo, long hi) {
        ElementType t = a.type();
        return run(op, a, out, (o, l, in) -> ElementMath.unaryInt(t, op, in, o, l, lo, hi));
    }

    private static boolean isInteger(ElementType t) {
        return t.kind() == 'i' || t.kind() == 'u';
    }

    /** The kernel call of one function: writes out (memory o, layout lo) from the input. */
    private interface Body {
        void run(MemorySegment o, StridedLayout lo, ElementMath.In in);
    }

    private static ArrayCore run(MathOp op, ArrayCore a, ArrayCore out, Body body) {
        ArrayCore target = out != null ? out : ArrayCore.empty(a.dtype(), a.layout().shape());
        try {
            checkOut(op.numpyName(), a, target);
            StridedLayout la = operand(op.numpyName(), "the input", a, target.layout().shape());
            MemorySegment am = a.mem();
            MemorySegment om = target.mem();
            ElementMath.In in = new ElementMath.In(am, la, a.id() == target.id());
            target.locks().writeReading(a.locks(), () -> {
                if (in.sameArray() && !la.equals(target.layout())) {
                    body.run(om, target.layout(), in); // parts would read what other parts write
                } else {
                    Parallel.split(new StridedLayout[] {target.layout(), la},
                            p -> body.run(om, p[0], new ElementMath.In(am, p[1], in.sameArray())));
                }
            });
        } catch (RuntimeException | Error e) {
            if (out == null) {
                target.close();
            }
            throw e;
        }
        return target;
    }

    /** a to the power b, broadcast together (out null) or to out's shape. */
    public static ArrayCore pow(ArrayCore a, ArrayCore b, ArrayCore out) {
        long[] shape = out != null ? out.layout().shape() : Shapes.broadcast(a.layout().shape(), b.layout().shape());
        return binary(a, b, out, shape);
    }

    private static ArrayCore binary(ArrayCore a, ArrayCore b, ArrayCore out, long[] shape) {
        ElementType t = a.type();
        if (!t.isFloatingPoint()) {
            throw new DTypeMismatchException("pow takes F64 and F32 arrays, not " + t + " (" + t.descr()
                    + "); convert first with a.astype(F64.TYPE)");
        }
        if (b.type() != t) {
            throw new DTypeMismatchException("pow: the exponent array is " + b.dtype() + " (" + b.dtype().descr() + ") but the base is "
                    + t + " (" + t.descr() + "); they must have one dtype: convert one with astype");
        }
        ArrayCore target = out != null ? out : ArrayCore.empty(a.dtype(), shape);
        try {
            checkOut("pow", a, target);
            StridedLayout la = operand("pow", "the base", a, shape);
            StridedLayout lb = operand("pow", "the exponent", b, shape);
            MemorySegment am = a.mem();
            MemorySegment bm = b.mem();
            MemorySegment om = target.mem();
            ElementMath.In x = new ElementMath.In(am, la, a.id() == target.id());
            ElementMath.In y = new ElementMath.In(bm, lb, b.id() == target.id());
            target.locks().writeReading(a.locks(), b.locks(), () -> ElementMath.pow(t, x, y, om, target.layout()));
        } catch (RuntimeException | Error e) {
            if (out == null) {
                target.close();
            }
            throw e;
        }
        return target;
    }

    private static void checkOut(String fn, ArrayCore a, ArrayCore out) {
        if (out.type() != a.type()) {
            throw new DTypeMismatchException(fn + ": out is " + out.dtype() + " (" + out.dtype().descr() + ") but the input is "
                    + a.dtype() + " (" + a.dtype().descr() + "); out must have the input's dtype (numpy's out= would cast, this "
                    + "library does not): pass an out of " + a.dtype() + ", or convert with astype");
        }
    }

    /** x's layout stretched to shape. */
    private static StridedLayout operand(String fn, String what, ArrayCore x, long[] shape) {
        StridedLayout l = x.layout();
        if (Arrays.equals(l.shape(), shape)) {
            return l;
        }
        StridedLayout stretched = l.broadcastTo(shape);
        if (stretched == null) {
            throw new ShapeMismatchException(fn + ": " + what + " of shape " + Arrays.toString(l.shape())
                    + " does not broadcast to out's shape " + Arrays.toString(shape)
                    + " (numpy's rule: from the last axis, each dimension equal or 1; out is never stretched)");
        }
        return stretched;
    }
}
