package dev.sharedarrays.internal.array;

import java.util.Arrays;

/**
 * The partition of a sample sort, shared by {@link ParallelLaneSort} (buckets for the native sort)
 * and {@link RadixSort} (buckets for the radix sort): splitters from a sorted sample, a key's bucket
 * among them, and where each thread's part of each bucket goes. Keys order as signed longs.
 */
final class SampleSplit {
    private SampleSplit() {
    }

    /** buckets - 1 splitters, evenly spaced in the sample (which this sorts). */
    static long[] splitters(long[] sample, int buckets) {
        Arrays.sort(sample);
        long[] splitters = new long[buckets - 1];
        for (int b = 1; b < buckets; b++) {
            splitters[b - 1] = sample[sample.length * b / buckets];
        }
        return splitters;
    }

    /** The bucket of key: how many splitters are at or below it. */
    static int bucket(long key, long[] splitters) {
        int b = 0;
        for (long sp : splitters) {
            b += key >= sp ? 1 : 0;
        }
        return b;
    }

    /**
     * Where each part's elements go, from counts[part][bucket]: bucket b of part p starts after all
     * of the buckets before b, then bucket b of the parts before p, the first at {@code origin}. Row p
     * (p below counts.length) holds part p's start in each bucket; the last row each bucket's start,
     * then the end of the last.
     */
    static long[][] starts(long[][] counts, long origin) {
        int parts = counts.length;
        int k = counts[0].length;
        long[][] starts = new long[parts + 1][];
        for (int p = 0; p < parts; p++) {
            starts[p] = new long[k];
        }
        long[] bucketStart = new long[k + 1];
        long at = origin;
        for (int b = 0; b < k; b++) {
            bucketStart[b] = at;
            for (int p = 0; p < parts; p++) {
                starts[p][b] = at;
                at += counts[p][b];
            }
        }
        bucketStart[k] = at;
        starts[parts] = bucketStart;
        return starts;
    }
}
