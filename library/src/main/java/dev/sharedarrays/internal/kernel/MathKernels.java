package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * The row kernels of the element-wise math functions: n elements read from byte offset so,
 * byte stride ss apart, written from dOff, ds apart (the source may be the destination, at the
 * same offsets). A contiguous float row takes the SIMD loop when there is one ({@link SimdMathLoops},
 * with {@code --add-modules jdk.incubator.vector}), anything else the blocked scalar loop
 * ({@link ScalarMath}).
 */
public final class MathKernels {
    private static final SimdMath VECTOR =
            Simd.load(SimdMath.class, "dev.sharedarrays.internal.kernel.SimdMathLoops");

    private MathKernels() {
    }

    private static boolean useVector() {
        return VECTOR != null && Simd.on();
    }

    /** d[i] = op(s[i]) for a float row (F64, F32); p is POW's exponent or CLIP's lower bound, q CLIP's upper bound. */
    public static void unary(ElementType t, MathOp op, MemorySegment s, long so, long ss, MemorySegment d, long dOff, long ds,
                             long n, double p, double q) {
        long done = 0;
        int size = t.itemSize();
        if (useVector() && ss == size && ds == size && SimdSegments.take(s, d) && VECTOR.handles(t, op)) {
            done = VECTOR.unary(t, op, s, so, d, dOff, n, p, q);
        }
        if (done < n) {
            ScalarMath.unary(t, op, s, so + done * size, ss, d, dOff + done * size, ds, n - done, p, q);
        }
    }

    /** d[i] = a[i] ** b[i] for float rows. */
    public static void pow(ElementType t, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                           MemorySegment d, long dOff, long ds, long n) {
        long done = 0;
        int size = t.itemSize();
        if (useVector() && as == size && bs == size && ds == size && SimdSegments.take(a, b, d) && VECTOR.handles(t, MathOp.POW)) {
            done = VECTOR.pow(t, a, ao, b, bo, d, dOff, n);
        }
        if (done < n) {
            ScalarMath.pow(t, a, ao + done * size, as, b, bo + done * size, bs, d, dOff + done * size, ds, n - done);
        }
    }

    /** d[i] = op(s[i]) for an integer row: ABS, SIGN, FLOOR, CEIL or CLIP to [lo, hi] (U64 compared unsigned); results wrap. */
    public static void unaryInt(ElementType t, MathOp op, MemorySegment s, long so, long ss, MemorySegment d, long dOff, long ds,
                                long n, long lo, long hi) {
        ScalarMath.unaryInt(t, op, s, so, ss, d, dOff, ds, n, lo, hi);
    }

    /**
     * The leading elements of a contiguous row converted between F64 and F32 by the SIMD loop, if
     * there is one; returns how many it did (0 for other types), the caller converts the rest.
     */
    public static long convert(ElementType from, ElementType to, MemorySegment s, long so, MemorySegment d, long dOff, long n) {
        boolean floats = (from == ElementType.F64 && to == ElementType.F32) || (from == ElementType.F32 && to == ElementType.F64);
        return useVector() && floats && SimdSegments.take(s, d) ? VECTOR.convert(from, to, s, so, d, dOff, n) : 0;
    }

    /** {@link SimdMath#combineRowsF64} when the SIMD loops are on, else 0 (the caller does every column). */
    public static int combineRowsF64(int op, double[] acc, MemorySegment s, long first, long rowBytes, long rows, int n) {
        return useVector() && SimdSegments.take(s) ? VECTOR.combineRowsF64(op, acc, s, first, rowBytes, rows, n) : 0;
    }
}
