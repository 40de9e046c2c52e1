package dev.sharedarrays.internal.array;

import java.util.Arrays;

/**
 * A long lane's heap sort over several threads, where there is no native sort to split into
 * buckets ({@link ParallelLaneSort}): each thread sorts a run with {@link Arrays#sort}, then the runs
 * are merged pairwise (one pass for two threads). {@link Arrays#parallelSort} would do this, but
 * sorts on one thread where the common pool has one worker, as on 2 cores. The order is
 * {@link Arrays#sort}'s: for doubles {@link Double#compare}'s (-0.0 before 0.0, NaNs last).
 */
final class HeapSorts {
    private HeapSorts() {
    }

    /** The threads to sort on: the kernels' count if set above 1, else the cores. */
    static int parts() {
        int t = Parallel.threads();
        return t > 1 ? t : Runtime.getRuntime().availableProcessors();
    }

    static void sort(double[] a, int parts) {
        int[] bounds = bounds(a.length, parts);
        Parallel.each(parts, i -> Arrays.sort(a, bounds[i], bounds[i + 1]));
        double[] src = a;
        double[] dst = new double[a.length];
        for (int width = 1; width < parts; width *= 2) {
            for (int i = 0; i < parts; i += 2 * width) {
                int lo = bounds[i];
                int mid = bounds[Math.min(i + width, parts)];
                int hi = bounds[Math.min(i + 2 * width, parts)];
                merge(src, lo, mid, hi, dst);
            }
            double[] t = src;
            src = dst;
            dst = t;
        }
        if (src != a) {
            System.arraycopy(src, 0, a, 0, a.length);
        }
    }

    static void sort(long[] a, int parts) {
        int[] bounds = bounds(a.length, parts);
        Parallel.each(parts, i -> Arrays.sort(a, bounds[i], bounds[i + 1]));
        long[] src = a;
        long[] dst = new long[a.length];
        for (int width = 1; width < parts; width *= 2) {
            for (int i = 0; i < parts; i += 2 * width) {
                int lo = bounds[i];
                int mid = bounds[Math.min(i + width, parts)];
                int hi = bounds[Math.min(i + 2 * width, parts)];
                merge(src, lo, mid, hi, dst);
            }
            long[] t = src;
            src = dst;
            dst = t;
        }
        if (src != a) {
            System.arraycopy(src, 0, a, 0, a.length);
        }
    }

    private static int[] bounds(int n, int parts) {
        int[] b = new int[parts + 1];
        for (int i = 0; i <= parts; i++) {
            b[i] = (int) ((long) n * i / parts);
        }
        return b;
    }

    /** src[lo, mid) and src[mid, hi), each sorted, into dst[lo, hi); the left run first among equals. */
    private static void merge(double[] src, int lo, int mid, int hi, double[] dst) {
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            dst[k++] = Double.compare(src[j], src[i]) < 0 ? src[j++] : src[i++];
        }
        System.arraycopy(src, i, dst, k, mid - i);
        System.arraycopy(src, j, dst, k + mid - i, hi - j);
    }

    private static void merge(long[] src, int lo, int mid, int hi, long[] dst) {
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
        }
        System.arraycopy(src, i, dst, k, mid - i);
        System.arraycopy(src, j, dst, k + mid - i, hi - j);
    }
}
