package dev.sharedarrays.internal.render;

/**
 * The heat maps' colour scale: matplotlib's viridis (dark blue at the low end, yellow at the hot
 * end), which stays readable in grey and for colour-blind readers; linear between nine of its
 * stops. NaN has a colour of its own, outside the scale.
 */
public final class ColorScale {
    private static final int[] STOPS = {
        0x440154, 0x482878, 0x3e4989, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6ece58, 0xfde725,
    };
    /** Not on the scale, so a NaN cell cannot be mistaken for a value. */
    public static final int NAN_RGB = 0xc0c0c0;
    public static final int LOW_RGB = STOPS[0];
    public static final int HIGH_RGB = STOPS[STOPS.length - 1];

    private ColorScale() {
    }

    /** The colour of {@code t} in [0, 1] (clamped); NaN gives {@link #NAN_RGB}. */
    public static int rgb(double t) {
        if (Double.isNaN(t)) {
            return NAN_RGB;
        }
        double x = Math.min(1.0, Math.max(0.0, t)) * (STOPS.length - 1);
        int i = Math.min(STOPS.length - 2, (int) x);
        double f = x - i;
        int a = STOPS[i], b = STOPS[i + 1];
        return mix(a >> 16, b >> 16, f) << 16 | mix(a >> 8, b >> 8, f) << 8 | mix(a, b, f);
    }

    private static int mix(int a, int b, double f) {
        a &= 0xff;
        b &= 0xff;
        return (int) Math.round(a + (b - a) * f);
    }
}
