package dev.sharedarrays.internal.array;

import java.util.Arrays;

/**
 * A most-significant-digit radix sort of unsigned 64-bit keys, for {@link RadixSort}'s lanes whose
 * keys differ in {@link #MIN_VARYING_BYTES} bytes or more: there the least-significant-digit sort
 * makes as many byte passes over the whole lane in main memory, each writing to 256 places at once
 * (60-90 ms on 16M keys), while this sort's passes past the first work on blocks that stay in the cache.
 * <p>
 * A node of the recursion splits its keys by up to {@link #MAX_NODE_BITS} bits below the highest
 * bit that differs among them, into buckets of {@link #LEAF} / 2 keys or fewer on average. A leaf (a bucket of at most
 * LEAF keys) is split once by about log2(its size) bits below the bits its node's split gave it, so
 * its buckets hold a key or two, and an insertion sort puts them in order; a bucket of more than
 * {@link #SMALL} keys is a leaf again, split below its own highest differing bit. Equal keys are equal
 * values here, so no pass has to be stable. Each level consumes at least one bit, so the recursion is
 * at most 64 deep.
 */
final class MsdRadixSort {
    /** Keys that differ in fewer bytes take RadixSort's byte passes, one a byte: fewer passes than here. */
    static final int MIN_VARYING_BYTES = 6;
    private static final int LEAF = 1 << 13;
    private static final int MAX_NODE_BITS = 11;
    private static final int SMALL = 16;

    private MsdRadixSort() {
    }

    /**
     * Sorts a[from, from + n) as unsigned longs through scratch[from, from + n); {@code differ} is
     * the or of every key's xor with the first (nonzero).
     */
    static void sort(long[] a, int from, int n, long[] scratch, long differ) {
        node(a, scratch, from, n, 64 - Long.numberOfLeadingZeros(differ), true, true, new int[LEAF], new int[LEAF]);
    }

    /**
     * As {@link #sort(long[], int, int, long[], long)} on {@code parts} threads ({@link Parallel#each}):
     * the first split is made by all of them, each counting and moving a slice of the keys, then each
     * sorts the buckets that start in its share of the keys. Returns false, having moved nothing, where
     * a bucket of that split would hold over half a share (one thread would get most of the work).
     */
    static boolean sort(long[] a, int from, int n, long[] scratch, long differ, int parts) {
        int top = 64 - Long.numberOfLeadingZeros(differ);
        int bits = Math.min(top, MAX_NODE_BITS);
        int shift = top - bits;
        int mask = (1 << bits) - 1;
        int[][] counts = new int[parts][];
        Parallel.each(parts, part -> {
            int[] count = new int[mask + 1];
            for (int i = from + RadixSort.slice(n, parts, part), end = from + RadixSort.slice(n, parts, part + 1); i < end; i++) {
                count[(int) (a[i] >>> shift) & mask]++;
            }
            counts[part] = count;
        });
        int[][] starts = new int[parts][mask + 1]; // bucket by bucket, each part's keys after the part before's
        int[] bucketStart = new int[mask + 2];
        int at = from;
        for (int b = 0; b <= mask; b++) {
            bucketStart[b] = at;
            for (int part = 0; part < parts; part++) {
                starts[part][b] = at;
                at += counts[part][b];
            }
        }
        bucketStart[mask + 1] = at;
        for (int b = 0; b <= mask; b++) {
            if (bucketStart[b + 1] - bucketStart[b] > n / parts / 2) {
                return false;
            }
        }
        Parallel.each(parts, part -> RadixSort.scatter(a, from + RadixSort.slice(n, parts, part), from + RadixSort.slice(n, parts, part + 1),
                scratch, starts[part], shift, mask));
        Parallel.each(parts, part -> {
            int[] leafCount = new int[LEAF];
            int[] leafNext = new int[LEAF];
            for (int b = 0; b <= mask; b++) { // the buckets that start in this part's share of the keys
                int start = bucketStart[b];
                int c = bucketStart[b + 1] - start;
                if (start - from < RadixSort.slice(n, parts, part) || start - from >= RadixSort.slice(n, parts, part + 1)) {
                    continue;
                }
                if (c > 1) {
                    node(scratch, a, start, c, shift, false, false, leafCount, leafNext);
                } else if (c == 1) {
                    a[start] = scratch[start];
                }
            }
        });
        return true;
    }

    /**
     * Sorts the keys in src[from, from + n), which are equal in every bit from {@code top} up, into
     * a: src if srcIsA, else dst (the other array is scratch); exact: some keys differ in bit top - 1
     * (the caller knows), so the count need not look. leafCount and leafNext are the leaves' tables, reused.
     */
    private static void node(long[] src, long[] dst, int from, int n, int top, boolean exact, boolean srcIsA, int[] leafCount,
            int[] leafNext) {
        if (n <= LEAF) {
            leaf(src, dst, from, n, top, srcIsA, leafCount, leafNext);
            return;
        }
        int bits = Math.min(top, Math.min(MAX_NODE_BITS, 33 - Integer.numberOfLeadingZeros((n - 1) / LEAF)));
        int shift = top - bits;
        int mask = (1 << bits) - 1;
        int[] count = new int[mask + 1];
        if (exact) {
            for (int i = from; i < from + n; i++) { // without the differ below: half the loop's time on 16M keys
                count[(int) (src[i] >>> shift) & mask]++;
            }
        } else {
            long first = src[from];
            long differ = 0;
            for (int i = from; i < from + n; i++) {
                long v = src[i];
                differ |= v ^ first;
                count[(int) (v >>> shift) & mask]++;
            }
            int vary = 64 - Long.numberOfLeadingZeros(differ);
            if (vary == 0) { // one value
                intoA(src, dst, from, n, srcIsA);
                return;
            }
            if (vary < top) { // the digit's top bits are one value here: split below them instead
                node(src, dst, from, n, vary, true, srcIsA, leafCount, leafNext);
                return;
            }
        }
        int[] next = new int[mask + 1];
        for (int b = 0, at = from; b <= mask; at += count[b++]) {
            next[b] = at;
        }
        RadixSort.scatter(src, from, from + n, dst, next, shift, mask);
        for (int b = 0, at = from; b <= mask; at += count[b++]) {
            int c = count[b];
            if (c > 1) {
                node(dst, src, at, c, shift, false, !srcIsA, leafCount, leafNext);
            } else if (c == 1 && srcIsA) {
                src[at] = dst[at];
            }
        }
    }

    /**
     * {@link #node} of at most {@link #LEAF} keys, with count and next of LEAF entries (a leaf's
     * split takes at most log2(LEAF) bits); top is
     * as there, or -1 where not known (a bucket a split left large: it may be one value, or differ
     * in a few low bits only), so this looks for the bits that differ first.
     */
    private static void leaf(long[] src, long[] dst, int from, int n, int top, boolean srcIsA, int[] count, int[] next) {
        long[] a = srcIsA ? src : dst;
        if (n <= 2 * SMALL) {
            intoA(src, dst, from, n, srcIsA);
            insertion(a, from, from + n);
            return;
        }
        int low = 0;
        int high = top;
        if (top < 0) {
            long differ = RadixSort.differ(src, from, from + n, src[from]);
            if (differ == 0) {
                intoA(src, dst, from, n, srcIsA);
                return;
            }
            low = Long.numberOfTrailingZeros(differ);
            high = 64 - Long.numberOfLeadingZeros(differ);
        }
        int bits = Math.min(high - low, 32 - Integer.numberOfLeadingZeros(n - 1)); // 2^bits < 2n
        int shift = high - bits;
        int mask = (1 << bits) - 1;
        Arrays.fill(count, 0, mask + 1, 0);
        for (int i = from; i < from + n; i++) {
            count[(int) (src[i] >>> shift) & mask]++;
        }
        int largest = 0;
        for (int b = 0, at = from; b <= mask; at += count[b++]) {
            next[b] = at;
            largest = Math.max(largest, count[b]);
        }
        RadixSort.scatter(src, from, from + n, dst, next, shift, mask);
        if (srcIsA) {
            System.arraycopy(dst, from, src, from, n);
        }
        if (shift == low) {
            return; // the split took every bit that may differ
        }
        if (largest <= SMALL) {
            insertion(a, from, from + n); // each key is at most a bucket away from its place
            return;
        }
        long[] other = srcIsA ? dst : src;
        int[] counts = Arrays.copyOf(count, mask + 1); // the leaves below reuse count and next
        for (int b = 0, at = from; b <= mask; at += counts[b++]) {
            int c = counts[b];
            if (c > SMALL) {
                leaf(a, other, at, c, -1, true, count, next);
            } else if (c > 1) {
                insertion(a, at, at + c);
            }
        }
    }

    /** Puts the keys at src[from, from + n) into a (dst where !srcIsA), where they lie. */
    private static void intoA(long[] src, long[] dst, int from, int n, boolean srcIsA) {
        if (!srcIsA) {
            System.arraycopy(src, from, dst, from, n);
        }
    }

    private static void insertion(long[] a, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            long v = a[i];
            int j = i - 1;
            while (j >= from && Long.compareUnsigned(a[j], v) > 0) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }
}
