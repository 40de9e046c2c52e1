package dev.sharedarrays.benchmarks;

import java.util.Arrays;

/** The median the benchmarks print. */
final class Stats {
    private Stats() {
    }

    /** The middle value of v (the mean of the two middle ones for an even count); v is left as it is. */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
