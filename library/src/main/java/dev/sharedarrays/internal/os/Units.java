package dev.sharedarrays.internal.os;

import java.util.Locale;

/** Sizes as people read them in messages and in {@code ls}. */
public final class Units {
    private static final String[] BINARY = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private Units() {
    }

    /** "60.1 MiB"; below 1 KiB the exact count, "512 B". */
    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        double v = n;
        int u = -1;
        while (v >= 1024 && u < BINARY.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, BINARY[u]);
    }
}
