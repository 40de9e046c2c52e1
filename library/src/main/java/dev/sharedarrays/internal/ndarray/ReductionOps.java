package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.DType;
import dev.sharedarrays.DTypeMismatchException;
import dev.sharedarrays.internal.array.AxisReduction;
import dev.sharedarrays.internal.array.CumulativeSum;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.Reduction;
import dev.sharedarrays.internal.array.RowReduction;
import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.Op;
import java.lang.foreign.MemorySegment;

/** The work of {@code Reductions}: whole-array and per-axis reductions and cumulative sums, under the read lock. */
public final class ReductionOps {
    private ReductionOps() {
    }

    /** SUM, MIN or MAX of all elements as a double. */
    public static double reduceAsDouble(ArrayCore a, Op op) {
        return a.locks().read(() -> a.type().isFloatingPoint() ? Loops.reduceFloat(a.type(), op, a.mem(), a.layout())
                : ElementCodec.longToDouble(a.type(), Loops.reduceInt(a.type(), op, a.mem(), a.layout())));
    }

    /** MIN or MAX of an integer array, exactly; method and instead name the call and the one for floats. */
    public static long reduceAsLong(ArrayCore a, Op op, String method, String instead) {
        return a.locks().read(() -> {
            requireInteger(a, method, instead);
            return Loops.reduceInt(a.type(), op, a.mem(), a.layout());
        });
    }

    public static double product(ArrayCore a) {
        return a.locks().read(() -> RowReduction.product(a.type(), a.mem(), a.layout()));
    }

    public static long productAsLong(ArrayCore a) {
        return a.locks().read(() -> {
            requireInteger(a, "prodAsLong", "prod");
            return RowReduction.productAsLong(a.type(), a.mem(), a.layout());
        });
    }

    public static double variance(ArrayCore a) {
        return a.locks().read(() -> RowReduction.variance(a.type(), a.mem(), a.layout()));
    }

    /** The flat index of the first largest (max) or smallest element; the first NaN's if any. */
    public static long arg(ArrayCore a, boolean max) {
        return a.locks().read(() -> RowReduction.arg(a.type(), max, a.mem(), a.layout()));
    }

    /** r along axis into a new process-local array without that axis. */
    public static ArrayCore reduceAxis(ArrayCore a, int axis, Reduction r) {
        long[] outShape = AxisReduction.outShape(a.layout().shape(), axis);
        DType<?> outType = ArrayCore.markerOf(r.resultType(a.type()));
        return a.locks().read(() -> {
            MemorySegment d = a.mem();
            ArrayCore out = ArrayCore.empty(outType, outShape);
            AxisReduction.reduce(a.type(), r, d, a.layout(), axis, out.mem());
            return out;
        });
    }

    /** numpy's cumsum dtype for this array's. */
    public static DType<?> cumsumType(ArrayCore a) {
        return ArrayCore.markerOf(CumulativeSum.defaultType(a.type()));
    }

    /** Running sums in dtype: of all elements in row-major order (axis null), or along axis. */
    public static ArrayCore cumulative(ArrayCore a, Integer axis, DType<?> dtype) {
        if (a.type().isFloatingPoint() && !dtype.isFloatingPoint()) {
            throw new DTypeMismatchException("cannot accumulate a " + a.dtype() + " array in " + dtype + ": a float array sums in F64 "
                    + "or F32; convert it with astype first");
        }
        long[] shape = axis == null ? new long[] {a.size()} : a.layout().shape();
        if (axis != null) {
            AxisReduction.outShape(shape, axis);
        }
        return a.locks().read(() -> {
            MemorySegment d = a.mem();
            ArrayCore out = ArrayCore.empty(dtype, shape);
            if (axis == null) {
                CumulativeSum.flat(a.type(), d, a.layout(), ArrayCore.typeOf(dtype), out.mem());
            } else {
                CumulativeSum.axis(a.type(), d, a.layout(), axis, ArrayCore.typeOf(dtype), out.mem());
            }
            return out;
        });
    }

    private static void requireInteger(ArrayCore a, String method, String instead) {
        if (a.type().isFloatingPoint()) {
            throw new DTypeMismatchException(method + "() is for integer arrays, this one holds " + a.dtype() + "; use " + instead + "()");
        }
    }
}
