package dev.sharedarrays.internal.array;

import java.util.Arrays;

/**
 * A long lane's heap sort over several threads, where there is no native sort to split into
 * buckets ({@link ParallelLaneSort}): {@link RadixSort}'s split over the threads; where its
 * scratch finds no heap, each thread sorts a run with {@link Arrays#sort}, then the runs
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
        long[][] keys = RadixSort.scratch(a.length, 2);
        if (keys != null) {
            RadixSort.sort(a, 0, a.length, keys[0], keys[1], parts);
        } else {
            sortRuns(a, new double[a.length], a.length, parts, (lo, hi) -> Arrays.sort(a, lo, hi), HeapSorts::merge);
        }
    }

    static void sort(long[] a, int parts) {
        long[][] tmp = RadixSort.scratch(a.length, 1);
        if (tmp != null) {
            RadixSort.sort(a, 0, a.length, tmp[0], parts);
        } else {
            sortRuns(a, new long[a.length], a.length, parts, (lo, hi) -> Arrays.sort(a, lo, hi), HeapSorts::merge);
        }
    }

    /** Sorts elements [lo, hi) of one array. */
    private interface RangeSort {
        void sort(int lo, int hi);
    }

    /** Merges src[lo, mid) and src[mid, hi) into dst[lo, hi). */
    private interface Merge<A> {
        void merge(A src, int lo, int mid, int hi, A dst);
    }

    /** a's n elements: one run a part sorted at once, then the runs merged pairwise through scratch. */
    private static <A> void sortRuns(A a, A scratch, int n, int parts, RangeSort sort, Merge<A> merge) {
        int[] bounds = bounds(n, parts);
        Parallel.each(parts, i -> sort.sort(bounds[i], bounds[i + 1]));
        A src = a;
        A dst = scratch;
        for (int width = 1; width < parts; width *= 2) {
            for (int i = 0; i < parts; i += 2 * width) {
                merge.merge(src, bounds[i], bounds[Math.min(i + width, parts)], bounds[Math.min(i + 2 * width, parts)], dst);
            }
            A t = src;
            src = dst;
            dst = t;
        }
        if (src != a) {
            System.arraycopy(src, 0, a, 0, n);
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
