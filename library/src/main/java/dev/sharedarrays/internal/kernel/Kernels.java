package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * The row kernels: n elements from byte offset off, byte stride stride apart. Each call takes
 * the SIMD loop when there is one for it ({@link SimdKernelLoops}, with {@code --add-modules
 * jdk.incubator.vector}, contiguous rows only), else the scalar loop ({@link ScalarKernels}).
 */
public final class Kernels {
    private static final SimdKernels VECTOR =
            Simd.load(SimdKernels.class, "dev.sharedarrays.internal.kernel.SimdKernelLoops");
    /**
     * Row bytes from which the SIMD loops with a scalar operand write out several vectors a pass
     * (SimdKernelLoops' BLOCK says why); public for the tests of the rows either side.
     */
    public static final long BLOCKS_FROM = 1L << 20;

    private Kernels() {
    }

    private static boolean useVector() {
        return VECTOR != null && Simd.on();
    }

    /** The generated dispatch's answer to a type and op it has no loop for (callers check first). */
    static IllegalArgumentException unsupported(ElementType t, Op op) {
        return new IllegalArgumentException("no " + op + " kernel for " + t);
    }

    private static SimdKernels fast(ElementType t, Op op, long stride) {
        return useVector() && stride == t.itemSize() && VECTOR.handles(t, op) ? VECTOR : null;
    }

    public static void fill(ElementType t, MemorySegment s, long off, long stride, long n, double dv, long lv) {
        ScalarKernels.fill(t, s, off, stride, n, dv, lv);
    }

    public static void scalar(ElementType t, Op op, MemorySegment s, long off, long stride, long n, double dv, long lv) {
        SimdKernels f = SimdSegments.take(s) ? fast(t, op, stride) : null;
        if (f != null) {
            f.scalar(t, op, s, off, n, dv, lv);
        } else {
            ScalarKernels.scalar(t, op, s, off, stride, n, dv, lv);
        }
    }

    public static void binary(ElementType t, Op op, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, long n) {
        SimdKernels f = as == bs && SimdSegments.take(a, b) ? fast(t, op, as) : null;
        if (f != null) {
            f.binary(t, op, a, ao, b, bo, n);
        } else {
            ScalarKernels.binary(t, op, a, ao, as, b, bo, bs, n);
        }
    }

    /** SUM, MIN or MAX of a float row. */
    public static double reduceFloat(ElementType t, Op op, MemorySegment s, long off, long stride, long n) {
        boolean simd = SimdSegments.take(s);
        SimdKernels f = simd ? fast(t, op, stride) : null;
        if (f != null) {
            return f.reduceFloat(t, op, s, off, n);
        }
        if (op == Op.SUM && useVector() && simd && VECTOR.sumsStrided(t, stride)) {
            return VECTOR.sumStrided(t, s, off, stride, n);
        }
        return switch (op) {
            case SUM -> ScalarKernels.sumFloat(t, s, off, stride, n);
            case MIN -> ScalarKernels.minFloat(t, s, off, stride, n);
            case MAX -> ScalarKernels.maxFloat(t, s, off, stride, n);
            default -> throw new IllegalArgumentException(op + " is not a reduction");
        };
    }

    /** SUM (wrapping 64-bit), MIN or MAX (U64 compared unsigned) of an integer row. */
    public static long reduceInt(ElementType t, Op op, MemorySegment s, long off, long stride, long n) {
        SimdKernels f = SimdSegments.take(s) ? fast(t, op, stride) : null;
        if (f != null) {
            return f.reduceInt(t, op, s, off, n);
        }
        return switch (op) {
            case SUM -> ScalarKernels.sumInt(t, s, off, stride, n);
            case MIN -> ScalarKernels.minInt(t, s, off, stride, n);
            case MAX -> ScalarKernels.maxInt(t, s, off, stride, n);
            default -> throw new IllegalArgumentException(op + " is not a reduction");
        };
    }

    /** True if an integer row holds a zero. */
    public static boolean anyZero(ElementType t, MemorySegment s, long off, long stride, long n) {
        return ScalarKernels.anyZero(t, s, off, stride, n);
    }
}
