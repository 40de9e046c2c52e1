package dev.sharedarrays.internal.kernel;

/** The shapes an array here may have: every layout (segment, .npy, queue cell) and check takes these. */
public final class ShapeLimits {
    /** 1 TiB: the largest data an array may have. */
    public static final long MAX_DATA_BYTES = 1L << 40;
    public static final int MAX_DIMS = 8;

    private ShapeLimits() {
    }

    /** Bytes of data for a shape, or -1 if it overflows or exceeds {@link #MAX_DATA_BYTES}. */
    public static long dataLength(long[] shape, int itemSize) {
        long n = itemSize;
        for (long d : shape) {
            if (d < 1) {
                return -1;
            }
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                return -1;
            }
            if (n > MAX_DATA_BYTES) {
                return -1;
            }
        }
        return n;
    }
}
