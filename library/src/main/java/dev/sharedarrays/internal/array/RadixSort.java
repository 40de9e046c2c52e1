package dev.sharedarrays.internal.array;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A radix sort of a heap lane, for where there is no native sort ({@link LaneSort}): a CPU without
 * AVX-512, where {@link Arrays#sort} is a scalar quicksort 6x slower than numpy's AVX2 sort on 16M
 * doubles. Values become 64-bit keys that order as unsigned numbers; one pass finds the bytes in
 * which they differ. Keys that differ in few bytes take a least-significant-digit sort: one pass
 * counts every byte of every key, then one stable scatter per byte that is not the same in all
 * keys; the others take {@link MsdRadixSort}. It
 * needs a scratch lane as long as the range; below {@link #MIN_LENGTH}
 * elements {@link Arrays#sort} is faster and is used. The order is Arrays.sort's: for doubles
 * {@link Double#compare}'s (-0.0 before 0.0, NaNs last, each NaN's bits kept).
 */
final class RadixSort {
    /** Shorter ranges are sorted by {@link Arrays#sort}. */
    static final int MIN_LENGTH = 1 << 16;
    private static final int DIGITS = 8;
    private static final int RADIX = 256;
    private static final long POSITIVE_INFINITY = 0x7ff0_0000_0000_0000L;

    private RadixSort() {
    }

    /**
     * {@code count} scratch lanes of n elements each for {@link #sort} and {@link #sortWide}, or null
     * where Arrays.sort is used instead: n below {@link #MIN_LENGTH}, or the lanes and one more (the
     * lane itself) over half of the heap's maximum. The heap's size is looked at, not tried: an
     * OutOfMemoryError, even one caught, runs the JVM's -XX:OnOutOfMemoryError action (which may kill
     * the process); its use now is not, since garbage not yet collected counts in it.
     */
    static long[][] scratch(int n, int count) {
        if (n < MIN_LENGTH || 8L * n * (count + 1) > Runtime.getRuntime().maxMemory() / 2) {
            return null;
        }
        long[][] lanes = new long[count][];
        for (int i = 0; i < count; i++) {
            lanes[i] = new long[n];
        }
        return lanes;
    }

    /** Sorts a[from, to) ascending as signed longs through scratch[from, to). */
    static void sort(long[] a, int from, int to, long[] scratch) {
        sort(a, from, to, scratch, 1);
    }

    /** As {@link #sort(long[], int, int, long[])}, on up to {@code parts} threads ({@link #sortKeys}). */
    static void sort(long[] a, int from, int to, long[] scratch, int parts) {
        int n = to - from;
        if (n < MIN_LENGTH) {
            Arrays.sort(a, from, to);
            return;
        }
        for (int i = from; i < to; i++) {
            a[i] ^= Long.MIN_VALUE;
        }
        long[] sorted = sortKeys(a, from, n, scratch, parts);
        for (int i = from; i < to; i++) {
            a[i] = sorted[i] ^ Long.MIN_VALUE;
        }
    }

    /** Sorts a[from, to) as {@link Arrays#sort} does, through keys[from, to) and scratch[from, to). */
    static void sort(double[] a, int from, int to, long[] keys, long[] scratch) {
        sort(a, from, to, keys, scratch, 1);
    }

    /** As {@link #sort(double[], int, int, long[], long[])}, on up to {@code parts} threads ({@link #sortKeys}). */
    static void sort(double[] a, int from, int to, long[] keys, long[] scratch, int parts) {
        int n = to - from;
        if (n < MIN_LENGTH) {
            Arrays.sort(a, from, to);
            return;
        }
        // backwards: each NaN goes to the tail, at or past where it was read; the rest become keys
        int m = 0;
        int tail = to;
        for (int i = to - 1; i >= from; i--) {
            double v = a[i];
            if (v != v) {
                a[--tail] = v;
            } else {
                long bits = Double.doubleToRawLongBits(v);
                keys[from + m++] = bits ^ ((bits >> 63) | Long.MIN_VALUE);
            }
        }
        long[] sorted = sortKeys(keys, from, m, scratch, parts);
        for (int i = from; i < from + m; i++) {
            long k = sorted[i];
            a[i] = Double.longBitsToDouble(k ^ ((~k >> 63) | Long.MIN_VALUE));
        }
    }

    /**
     * Sorts the n contiguous 64-bit elements at element {@code first} of s where they lie, as
     * {@link LaneSort} orders them ({@code kind}: F64, signed or unsigned), through keys[0, n) and
     * scratch[0, n), on up to {@code parts} threads: the elements go to the keys and come back
     * without a heap lane between. s may be another process's mapping: its reads and writes are
     * Java's, on this thread and {@link Parallel#each}'s (a fault comes back as an exception).
     */
    static void sortWide(Kind kind, MemorySegment s, long first, int n, long[] keys, long[] scratch, int parts) {
        if (n < 2) {
            return; // (its callers pass long lanes; element 0 is read below)
        }
        int p = Math.max(1, Math.min(parts, n / MIN_LENGTH));
        boolean[] nan = new boolean[p];
        long[] differs = new long[p]; // the bits in which each part's keys differ from element 0's key
        long key0 = toKey(kind, s.getAtIndex(JAVA_LONG_UNALIGNED, first));
        Parallel.each(p, part -> nan[part] = toKeys(kind, s, first, keys, slice(n, p, part), slice(n, p, part + 1), key0, differs, part));
        int m = n;
        long differ = 0;
        for (int part = 0; part < p; part++) {
            differ |= differs[part];
            if (nan[part]) {
                m = nansLast(s, first, n, keys);
                differ = -1; // to be found again, over the keys that are not NaNs
                break;
            }
        }
        int sortedCount = m;
        long[] sorted = sortKeys(keys, 0, m, scratch, parts, differ);
        Parallel.each(p, part -> fromKeys(kind, sorted, s, first, slice(sortedCount, p, part), slice(sortedCount, p, part + 1)));
    }

    /** How {@link #sortWide}'s elements order. */
    enum Kind { F64, SIGNED, UNSIGNED }

    /** The key of one element's bits, as {@link #toKeysBlock} makes it. */
    private static long toKey(Kind kind, long bits) {
        return switch (kind) {
            case F64 -> bits ^ ((bits >> 63) | Long.MIN_VALUE);
            case SIGNED -> bits ^ Long.MIN_VALUE;
            case UNSIGNED -> bits;
        };
    }

    /**
     * keys[from, to) from elements [first + from, first + to) of s; true if one was a NaN (its key is not one to
     * sort). differs[part] gets the bits in which these keys differ from key0: the pass that makes the keys finds
     * them, not one more pass over the lane.
     */
    private static boolean toKeys(Kind kind, MemorySegment s, long first, long[] keys, int from, int to, long key0, long[] differs,
            int part) {
        boolean nans = false;
        long differ = 0;
        for (int at = from, end; at < to; at = end) {
            end = to - at > Blocks.SIZE ? at + Blocks.SIZE : to; // no at + SIZE past Integer.MAX_VALUE
            nans |= toKeysBlock(kind, s, first, keys, at, end);
            differ |= differ(keys, at, end, key0); // the block, still in the cache
        }
        differs[part] = differ;
        return nans;
    }

    /**
     * {@link #toKeys} of a block: a loop over a whole 16M-element lane was compiled on stack
     * replacement, and its loop predicates failed and were compiled again up to ~100 times a call
     * (2.2 s calls where 0.5 s is the rule); a block's loop is compiled as a method is.
     */
    private static boolean toKeysBlock(Kind kind, MemorySegment s, long first, long[] keys, int from, int to) {
        long nans = 0;
        switch (kind) {
            case F64 -> {
                for (int i = from; i < to; i++) {
                    long bits = s.getAtIndex(JAVA_LONG_UNALIGNED, first + i);
                    nans |= (bits & Long.MAX_VALUE) > POSITIVE_INFINITY ? 1 : 0;
                    keys[i] = bits ^ ((bits >> 63) | Long.MIN_VALUE);
                }
            }
            case SIGNED -> {
                for (int i = from; i < to; i++) {
                    keys[i] = s.getAtIndex(JAVA_LONG_UNALIGNED, first + i) ^ Long.MIN_VALUE;
                }
            }
            case UNSIGNED -> MemorySegment.copy(s, JAVA_LONG_UNALIGNED, (first + from) * 8, keys, from, to - from);
        }
        return nans != 0;
    }

    /** Elements [first + from, first + to) of s from the sorted keys[from, to). */
    private static void fromKeys(Kind kind, long[] keys, MemorySegment s, long first, int from, int to) {
        for (int at = from, end; at < to; at = end) {
            end = to - at > Blocks.SIZE ? at + Blocks.SIZE : to;
            fromKeysBlock(kind, keys, s, first, at, end);
        }
    }

    /** {@link #fromKeys} of a block, for the reason of {@link #toKeysBlock}. */
    private static void fromKeysBlock(Kind kind, long[] keys, MemorySegment s, long first, int from, int to) {
        switch (kind) {
            case F64 -> {
                for (int i = from; i < to; i++) {
                    long k = keys[i];
                    s.setAtIndex(JAVA_LONG_UNALIGNED, first + i, k ^ ((~k >> 63) | Long.MIN_VALUE));
                }
            }
            case SIGNED -> {
                for (int i = from; i < to; i++) {
                    s.setAtIndex(JAVA_LONG_UNALIGNED, first + i, keys[i] ^ Long.MIN_VALUE);
                }
            }
            case UNSIGNED -> MemorySegment.copy(keys, from, s, JAVA_LONG_UNALIGNED, (first + from) * 8, to - from);
        }
    }

    /**
     * Where the n doubles at first hold a NaN: backwards, each NaN goes to the tail of s (at or
     * past where it was read, its bits kept) and every other element's key to keys[0, m); returns m.
     */
    private static int nansLast(MemorySegment s, long first, int n, long[] keys) {
        int m = 0;
        long tail = first + n;
        for (long i = first + n - 1; i >= first; i--) {
            long bits = s.getAtIndex(JAVA_LONG_UNALIGNED, i);
            if ((bits & Long.MAX_VALUE) > POSITIVE_INFINITY) {
                s.setAtIndex(JAVA_LONG_UNALIGNED, --tail, bits);
            } else {
                keys[m++] = bits ^ ((bits >> 63) | Long.MIN_VALUE);
            }
        }
        return m;
    }

    /**
     * Sorts keys[from, from + n) as unsigned longs through scratch[from, from + n) and returns the
     * array that holds them sorted there. On more than one thread (parts, each at least
     * {@link #MIN_LENGTH} keys), {@link MsdRadixSort}'s split on every thread where the keys differ
     * in many bytes and its buckets share out evenly; else a sample sort: splitters from a sample cut
     * the keys into one bucket a thread; the threads count their slice's keys a bucket, scatter them
     * to their bucket's place in scratch, then each bucket is radix-sorted where it lies, with the
     * same range of keys as its scratch. A merge of runs instead took a single-threaded pass over the lane.
     */
    private static long[] sortKeys(long[] keys, int from, int n, long[] scratch, int parts) {
        return sortKeys(keys, from, n, scratch, parts, -1);
    }

    /** As {@link #sortKeys(long[], int, int, long[], int)}, given the bits in which the keys differ from the first (-1: not known). */
    private static long[] sortKeys(long[] keys, int from, int n, long[] scratch, int parts, long known) {
        int p = Math.min(parts, n / MIN_LENGTH);
        if (p < 2) {
            sortUnsigned(keys, from, n, scratch, known);
            return keys;
        }
        long differ = known;
        if (differ == -1) {
            long first = keys[from];
            long[] differs = new long[p];
            Parallel.each(p, part -> differs[part] = differ(keys, from + slice(n, p, part), from + slice(n, p, part + 1), first));
            differ = 0;
            for (long d : differs) {
                differ |= d;
            }
        }
        if (differ == 0) {
            return keys;
        }
        if (varyingBytes(differ) >= MsdRadixSort.MIN_VARYING_BYTES && MsdRadixSort.sort(keys, from, n, scratch, differ, p)) {
            return keys;
        }
        long[] splitters = splitters(keys, from, n, p);
        long[][] counts = new long[p][];
        Parallel.each(p, part -> counts[part] = count(keys, from + slice(n, p, part), from + slice(n, p, part + 1), splitters));
        long[][] starts = SampleSplit.starts(counts, from);
        Parallel.each(p, part -> scatter(keys, from + slice(n, p, part), from + slice(n, p, part + 1), splitters, scratch, starts[part]));
        long[] bucketStart = starts[p];
        Parallel.each(p, b -> sortUnsigned(scratch, (int) bucketStart[b], (int) (bucketStart[b + 1] - bucketStart[b]), keys, -1));
        return scratch;
    }

    /** Where part of parts starts in n elements. */
    static int slice(int n, int parts, int part) {
        return (int) ((long) n * part / parts);
    }

    /** parts - 1 splitters (as signed-order keys: key ^ MIN_VALUE), from a sample spread evenly over the keys. */
    private static long[] splitters(long[] keys, int from, int n, int parts) {
        int samples = Math.min(n, 256 * parts);
        long[] sample = new long[samples];
        for (int i = 0; i < samples; i++) {
            sample[i] = keys[from + (int) ((long) n * i / samples)] ^ Long.MIN_VALUE;
        }
        return SampleSplit.splitters(sample, parts);
    }

    private static long[] count(long[] keys, int from, int to, long[] splitters) {
        long[] counts = new long[splitters.length + 1];
        for (int i = from; i < to; i++) {
            counts[SampleSplit.bucket(keys[i] ^ Long.MIN_VALUE, splitters)]++;
        }
        return counts;
    }

    /** Writes keys[from, to) to out, each at the next place of its bucket. */
    private static void scatter(long[] keys, int from, int to, long[] splitters, long[] out, long[] starts) {
        long[] next = starts.clone();
        for (int i = from; i < to; i++) {
            long v = keys[i];
            out[(int) next[SampleSplit.bucket(v ^ Long.MIN_VALUE, splitters)]++] = v;
        }
    }

    /**
     * Sorts a[from, from + n) as unsigned longs through scratch[from, from + n): by byte passes where
     * the keys differ in few bytes, else by {@link MsdRadixSort}. known: the bits in which the keys differ
     * from the first, or -1 where not known.
     */
    private static void sortUnsigned(long[] a, int from, int n, long[] scratch, long known) {
        if (n < 2) {
            return;
        }
        long differ = known != -1 ? known : differ(a, from, from + n, a[from]);
        if (varyingBytes(differ) >= MsdRadixSort.MIN_VARYING_BYTES) {
            MsdRadixSort.sort(a, from, n, scratch, differ);
        } else if (differ != 0) {
            sortBytes(a, from, n, scratch, differ);
        }
    }

    /** The bits in which keys[from, to) differ from first. */
    static long differ(long[] keys, int from, int to, long first) {
        long differ = 0;
        for (int i = from; i < to; i++) {
            differ |= keys[i] ^ first;
        }
        return differ;
    }

    /** Writes src[from, to) to dst, each key at the next place of its digit (key >>> shift) & mask. */
    static void scatter(long[] src, int from, int to, long[] dst, int[] next, int shift, int mask) {
        for (int i = from; i < to; i++) {
            long v = src[i];
            dst[next[(int) (v >>> shift) & mask]++] = v;
        }
    }

    /** How many of the 8 bytes have a bit of differ. */
    private static int varyingBytes(long differ) {
        int varying = 0;
        for (int d = 0; d < DIGITS; d++) {
            varying += ((differ >>> (8 * d)) & 0xff) != 0 ? 1 : 0;
        }
        return varying;
    }

    /** Sorts a[from, from + n) as unsigned longs through scratch[from, from + n), a pass a byte where differ has bits. */
    private static void sortBytes(long[] a, int from, int n, long[] scratch, long differ) {
        int[] counts = new int[DIGITS * RADIX];
        for (int i = from; i < from + n; i++) {
            long v = a[i];
            counts[(int) v & 0xff]++;
            counts[RADIX + ((int) (v >>> 8) & 0xff)]++;
            counts[2 * RADIX + ((int) (v >>> 16) & 0xff)]++;
            counts[3 * RADIX + ((int) (v >>> 24) & 0xff)]++;
            counts[4 * RADIX + ((int) (v >>> 32) & 0xff)]++;
            counts[5 * RADIX + ((int) (v >>> 40) & 0xff)]++;
            counts[6 * RADIX + ((int) (v >>> 48) & 0xff)]++;
            counts[7 * RADIX + (int) (v >>> 56)]++;
        }
        long[] src = a;
        long[] dst = scratch;
        int[] next = new int[RADIX];
        for (int d = 0; d < DIGITS; d++) {
            int shift = 8 * d;
            if (((differ >>> shift) & 0xff) == 0) {
                continue; // every key has this byte: the pass would keep the order
            }
            int place = from;
            for (int b = 0; b < RADIX; b++) {
                next[b] = place;
                place += counts[d * RADIX + b];
            }
            scatter(src, from, from + n, dst, next, shift, 0xff);
            long[] t = src;
            src = dst;
            dst = t;
        }
        if (src != a) {
            System.arraycopy(src, from, a, from, n);
        }
    }
}
