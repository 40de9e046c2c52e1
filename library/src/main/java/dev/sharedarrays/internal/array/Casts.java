package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementCodec;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.MathKernels;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * numpy's {@code astype} casts between element types: floats to integers truncate toward zero,
 * integers wrap to the target width, integers to floats round to nearest, and anything to BOOL
 * is true unless zero (NaN too). Where numpy yields an undefined value (NaN, an infinity or a
 * float outside the target's range cast to an integer), this throws instead. The caller holds
 * the locks.
 */
public final class Casts {
    private Casts() {
    }

    /**
     * Converts every element of {@code src} (layout {@code ls}) into {@code dst} (layout {@code ld}, same shape).
     *
     * @throws ArithmeticException naming the first element, in row-major order, that has no integer value in {@code to}
     */
    public static void cast(ElementType from, MemorySegment src, StridedLayout ls, ElementType to, MemorySegment dst,
                            StridedLayout ld) {
        long[] done = {0};
        Loops.rows(ls, ld, 1, (so, ss, d0, ds, n) -> {
            row(from, src, so * from.itemSize(), ss * from.itemSize(), to, dst, d0 * to.itemSize(), ds * to.itemSize(), n,
                    done[0], ls.shape());
            done[0] += n;
        });
    }

    private static void row(ElementType from, MemorySegment src, long so, long ss, ElementType to, MemorySegment dst,
                            long d0, long ds, long n, long flat0, long[] shape) {
        if (ss == from.itemSize() && ds == to.itemSize()) {
            long done = MathKernels.convert(from, to, src, so, dst, d0, n);
            so += done * ss;
            d0 += done * ds;
            n -= done;
            flat0 += done;
        }
        if (from == ElementType.F64 && to == ElementType.F32) {
            for (long i = 0; i < n; i++) {
                dst.set(JAVA_FLOAT, d0 + i * ds, (float) src.get(JAVA_DOUBLE, so + i * ss));
            }
            return;
        }
        if (from == ElementType.F32 && to == ElementType.F64) {
            for (long i = 0; i < n; i++) {
                dst.set(JAVA_DOUBLE, d0 + i * ds, src.get(JAVA_FLOAT, so + i * ss));
            }
            return;
        }
        int fi = from.itemSize();
        int ti = to.itemSize();
        // to BOOL every value has a cast, nonzero (NaN too) to true: through the double, as 0.5 is true
        boolean floatToInt = from.isFloatingPoint() && !to.isFloatingPoint() && !to.isBool();
        for (long i = 0; i < n; i++) {
            long s = (so + i * ss) / fi;
            long d = (d0 + i * ds) / ti;
            if (to.isFloatingPoint() || to.isBool()) {
                ElementCodec.setDouble(to, dst, d, ElementCodec.getDouble(from, src, s));
            } else if (floatToInt) {
                double v = ElementCodec.getDouble(from, src, s);
                if (!fits(to, v)) {
                    throw new ArithmeticException("cannot cast " + from + " to " + to + ": element " + (flat0 + i)
                            + " (flat index, shape " + Arrays.toString(shape) + ") is " + v + ", which has no " + to
                            + " value (numpy would store an undefined one); clip or replace it first");
                }
                ElementCodec.setDouble(to, dst, d, v);
            } else {
                ElementCodec.setLong(to, dst, d, ElementCodec.getLong(from, src, s));
            }
        }
    }

    /** True if v truncated toward zero lies in the integer type's range. */
    static boolean fits(ElementType to, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return false;
        }
        double t = v < 0 ? Math.ceil(v) : Math.floor(v);
        int bits = 8 * to.itemSize();
        double max = to.isUnsigned() ? Math.scalb(1.0, bits) : Math.scalb(1.0, bits - 1);
        double min = to.isUnsigned() ? 0 : -max;
        return t >= min && t < max;
    }
}
