package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of process-local arrays, which the garbage collector frees once no array, view or
 * data segment reaches it.
 *
 * <p>Small arrays live on the Java heap (a {@code long[]}, so every element type is aligned).
 * Larger ones are private anonymous mappings of an automatic {@link Arena}, in small pages:
 * with MADV_HUGEPAGE a fresh 128 MiB result took ~450 ms to fault in on the build machine (THP
 * defrag madvise and defer alike) against ~35 ms without, and reused mappings are faulted already. When the collector finds one unreachable,
 * its mapping goes to a cache for the next array of that size or smaller, already faulted in, as
 * malloc hands numpy a freed block; past {@link #CACHE_LIMIT} bytes, cached mappings of other
 * lengths are unmapped first. The collector does not see the size of a mapping, so a loop of
 * large temporaries would outrun it; as the JDK does for direct buffers, a mapping that would
 * take the live total past a limit first asks for a collection and waits briefly for the
 * cleaner; the limit is then what is still in use plus {@link #MIN_LIMIT}. Thread-safe.
 */
final class LocalMemory {
    private static final long HEAP_MAX = 256L << 10;
    private static final long MIN_LIMIT = 512L << 20;
    private static final long CACHE_LIMIT = 512L << 20;
    private static final AtomicLong LIVE = new AtomicLong();
    private static final AtomicLong CACHED = new AtomicLong();
    /** Mapping lengths, and the cuts of cached mappings, are multiples of this: of every Linux page size. */
    private static final long GRAIN = 64L << 10;
    private static final ConcurrentSkipListMap<Long, ConcurrentLinkedDeque<Long>> CACHE = new ConcurrentSkipListMap<>();
    private static volatile long limit = MIN_LIMIT;

    private LocalMemory() {
    }

    /** Memory of {@code size} bytes, freed when unreachable; zero-filled if {@code zeroed}, else of any content. */
    static MemorySegment allocate(long size, boolean zeroed) {
        if (size <= HEAP_MAX) {
            return MemorySegment.ofArray(new long[(int) ((size + 7) >>> 3)]).asSlice(0, size);
        }
        long length = roundUp(size, GRAIN);
        reserve(length);
        long[] piece = take(length);
        long address;
        if (piece != null) {
            address = piece[0];
            LIVE.addAndGet(piece[1] - length);
            length = piece[1];
        } else {
            try {
                address = Libc.mmap(length, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0,
                        "process-local array");
            } catch (RuntimeException | Error e) {
                LIVE.addAndGet(-length);
                throw e;
            }
        }
        long mapped = length;
        MemorySegment s = MemorySegment.ofAddress(address).reinterpret(size, Arena.ofAuto(), unused -> free(address, mapped));
        if (piece != null && zeroed) {
            s.fill((byte) 0);
        }
        return s;
    }

    /** Bytes of process-local mappings in use (heap arrays are the collector's). */
    static long live() {
        return LIVE.get();
    }

    /**
     * A cached mapping of at least {@code length} bytes as {address, its length}, or null: one of
     * that length, else the front of the smallest longer one (the rest stays cached; lengths are
     * multiples of {@link #GRAIN}, so both parts stay page-aligned), as malloc splits a free block. A 64 MiB result thus reuses half of a freed 128 MiB one, already faulted in.
     */
    private static long[] take(long length) {
        for (var e = CACHE.ceilingEntry(length); e != null; e = CACHE.higherEntry(e.getKey())) {
            Long address = e.getValue().pollFirst();
            if (address == null) {
                continue;
            }
            long have = e.getKey();
            CACHED.addAndGet(-have);
            if (have - length <= HEAP_MAX) {
                return new long[] {address, have}; // no array would take the rest
            }
            keep(address + length, have - length);
            return new long[] {address, length};
        }
        return null;
    }

    /** Runs on the cleaner thread: keeps the mapping for reuse, evicting mappings of other lengths past the cache's limit. */
    private static void free(long address, long length) {
        LIVE.addAndGet(-length);
        keep(address, length);
        while (CACHED.get() > CACHE_LIMIT && evict(length)) {
            // the newest lengths stay: a loop's temporaries are all of a few sizes
        }
    }

    private static void keep(long address, long length) {
        CACHE.computeIfAbsent(length, k -> new ConcurrentLinkedDeque<>()).addFirst(address);
        CACHED.addAndGet(length);
    }

    /** Unmaps one cached mapping, of another length than {@code keep} if there is one; false if none is left. */
    private static boolean evict(long keep) {
        for (var e : CACHE.entrySet()) {
            if (e.getKey() != keep || CACHE.size() == 1) {
                Long address = e.getValue().pollLast();
                if (address != null) {
                    CACHED.addAndGet(-e.getKey());
                    Libc.munmap(address, e.getKey());
                    return true;
                }
            }
        }
        return false;
    }

    private static long roundUp(long n, long unit) {
        return (n + unit - 1) / unit * unit;
    }

    private static void reserve(long size) {
        if (LIVE.addAndGet(size) <= limit) {
            return;
        }
        LIVE.addAndGet(-size);
        System.gc();
        // the cleaner thread frees after the collection: give it a moment, as java.nio.Bits does
        for (long sleep = 1; sleep <= 512 && LIVE.get() + size > limit; sleep <<= 1) {
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // room for MIN_LIMIT more than is in use now: a large working set does not collect on every
        // allocation, and a cleaner that lags behind raises the limit only by a step, which the
        // next collection takes back
        limit = LIVE.get() + MIN_LIMIT;
        LIVE.addAndGet(size);
    }
}
