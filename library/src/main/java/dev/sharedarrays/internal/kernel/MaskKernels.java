package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * The row kernels of comparisons, logic on bool rows, where and masked copies: n elements from
 * byte offset off, byte stride apart (0 repeats one element). Each call runs the SIMD loop of
 * {@link SimdMaskLoops} on whole blocks of 64 when the rows are contiguous and the JVM has
 * the Vector API, and {@link ScalarMaskKernels} on the rest. Bool rows hold one byte per
 * element; results are 0 or 1, and any nonzero byte read is true.
 */
public final class MaskKernels {
    private static final SimdMaskKernels VECTOR =
            Simd.load(SimdMaskKernels.class, "dev.sharedarrays.internal.kernel.SimdMaskLoops");

    private MaskKernels() {
    }

    private static boolean useVector() {
        return VECTOR != null && Simd.on();
    }

    private static long blocks(long n) {
        return useVector() ? n & -64L : 0;
    }

    /**
     * out = (a cmp v) for a scalar v: dv for float rows, lv for integer rows, where lv must be in
     * the element type's range (U64: its bit pattern, compared unsigned).
     */
    public static void compareScalar(ElementType t, Cmp c, MemorySegment a, long ao, long as, MemorySegment o, long oo, long os, long n,
                                     double dv, long lv) {
        long done = as == t.itemSize() && os == 1 && SimdSegments.take(a, o) ? blocks(n) : 0;
        if (done > 0 && !VECTOR.compareScalar(t, c, a, ao, o, oo, n, dv, lv)) {
            done = 0;
        }
        if (done < n) {
            ScalarMaskKernels.compareScalar(t, c, a, ao + done * as, as, o, oo + done, os, n - done, dv, lv);
        }
    }

    /** out = (a cmp b) for two rows of type t. */
    public static void compare(ElementType t, Cmp c, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                               MemorySegment o, long oo, long os, long n) {
        int size = t.itemSize();
        long done = as == size && bs == size && os == 1 && SimdSegments.take(a, b, o) ? blocks(n) : 0;
        if (done > 0 && !VECTOR.compare(t, c, a, ao, b, bo, o, oo, n)) {
            done = 0;
        }
        if (done < n) {
            ScalarMaskKernels.compare(t, c, a, ao + done * as, as, b, bo + done * bs, bs, o, oo + done, os, n - done);
        }
    }

    /** out = a (op) b on bool rows; NOT reads only a. */
    public static void logical(Logic op, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, MemorySegment o, long oo,
                               long os, long n) {
        long done = as == 1 && (bs == 1 || op == Logic.NOT) && os == 1 && SimdSegments.take(a, b, o) ? blocks(n) : 0;
        if (done > 0) {
            VECTOR.logical(op, a, ao, b, bo, o, oo, n);
        }
        if (done < n) {
            ScalarMaskKernels.logical(op, a, ao + done, as, b, bo + done * bs, bs, o, oo + done, os, n - done);
        }
    }

    /** out = mask ? x : y for elements of size bytes (their bits are moved, whatever the type). */
    public static void where(int size, MemorySegment m, long mo, long ms, MemorySegment x, long xo, long xs, MemorySegment y, long yo,
                             long ys, MemorySegment o, long oo, long os, long n) {
        boolean simd = ms == 1 && os == size && (xs == size || xs == 0) && (ys == size || ys == 0) && SimdSegments.take(m, x, y, o);
        long done = simd ? blocks(n) : 0;
        if (done > 0 && !VECTOR.where(size, m, mo, x, xo, xs, y, yo, ys, o, oo, n)) {
            done = 0;
        }
        if (done < n) {
            ScalarMaskKernels.where(size, m, mo + done, ms, x, xo + done * xs, xs, y, yo + done * ys, ys, o, oo + done * os, os, n - done);
        }
    }

    /** The number of nonzero bytes of a bool row. */
    public static long count(MemorySegment m, long off, long stride, long n) {
        long done = stride == 1 && SimdSegments.take(m) ? blocks(n) : 0;
        long c = done > 0 ? VECTOR.count(m, off, n) : 0;
        return done < n ? c + ScalarKernels.sumInt(ElementType.BOOL, m, off + done * stride, stride, n - done) : c;
    }

    /**
     * Copies the elements of row a whose mask byte is nonzero to o, contiguous from byte offset
     * oo, at most limit of them; returns how many.
     */
    public static long compress(int size, MemorySegment a, long ao, long as, MemorySegment m, long mo, long ms, MemorySegment o, long oo,
                                long n, long limit) {
        return ScalarMaskKernels.compress(size, a, ao, as, m, mo, ms, o, oo, n, limit);
    }

    /**
     * Stores the next of the contiguous values v (from byte offset vo, at most limit of them)
     * into each element of row a whose mask byte is nonzero; returns how many it took.
     */
    public static long expand(int size, MemorySegment a, long ao, long as, MemorySegment m, long mo, long ms, MemorySegment v, long vo,
                              long n, long limit) {
        return ScalarMaskKernels.expand(size, a, ao, as, m, mo, ms, v, vo, n, limit);
    }
}
