package dev.sharedarrays.benchmarks;

import java.util.Arrays;
import java.util.Locale;

/** What the benchmarks print of their timings: the median, and every call for --samples. */
final class Stats {
    private Stats() {
    }

    /** The middle value of v (the mean of the two middle ones for an even count); v is left as it is. */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Every value of v in its order, one decimal each, separated by spaces. */
    static String calls(double[] v) {
        StringBuilder b = new StringBuilder();
        for (double x : v) {
            b.append(b.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.1f", x));
        }
        return b.toString();
    }
}
