package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of process-local arrays, which the garbage collector frees once no array, view or
 * data segment reaches it.
 *
 * <p>Small arrays live on the Java heap (a {@code long[]}, so every element type is aligned).
 * Larger ones are private anonymous mappings (huge pages requested) of an automatic
 * {@link Arena}. When the collector finds one unreachable, its mapping goes to a cache for the
 * next array of the same size, already faulted in, as malloc hands numpy a freed block; past
 * {@link #CACHE_LIMIT} bytes, cached mappings of other sizes are unmapped first. The collector does not
 * see the size of a mapping, so a loop of large temporaries would outrun it; as the JDK does
 * for direct buffers, a mapping that would take the live total past a limit first asks for a
 * collection and waits briefly for the cleaner; the limit is then what is still in use plus
 * {@link #MIN_LIMIT}. Thread-safe.
 */
final class LocalMemory {
    private static final long HEAP_MAX = 256L << 10;
    private static final long HUGE_PAGE = 2L << 20;
    private static final long MIN_LIMIT = 512L << 20;
    private static final long CACHE_LIMIT = 512L << 20;
    private static final AtomicLong LIVE = new AtomicLong();
    private static final AtomicLong CACHED = new AtomicLong();
    private static final ConcurrentHashMap<Long, ConcurrentLinkedDeque<Long>> CACHE = new ConcurrentHashMap<>();
    private static volatile long limit = MIN_LIMIT;

    private LocalMemory() {
    }

    /** Memory of {@code size} bytes, freed when unreachable; zero-filled if {@code zeroed}, else of any content. */
    static MemorySegment allocate(long size, boolean zeroed) {
        if (size <= HEAP_MAX) {
            return MemorySegment.ofArray(new long[(int) ((size + 7) >>> 3)]).asSlice(0, size);
        }
        reserve(size);
        Long cached = take(size);
        long address;
        if (cached != null) {
            address = cached;
        } else {
            try {
                address = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0,
                        "process-local array");
            } catch (RuntimeException | Error e) {
                LIVE.addAndGet(-size);
                throw e;
            }
            if (size >= HUGE_PAGE) {
                Libc.madvise(address, size, Libc.MADV_HUGEPAGE); // fewer faults and TLB misses where THP is "madvise"
            }
        }
        MemorySegment s = MemorySegment.ofAddress(address).reinterpret(size, Arena.ofAuto(), unused -> free(address, size));
        if (cached != null && zeroed) {
            s.fill((byte) 0);
        }
        return s;
    }

    /** Bytes of process-local mappings in use (heap arrays are the collector's). */
    static long live() {
        return LIVE.get();
    }

    private static Long take(long size) {
        ConcurrentLinkedDeque<Long> q = CACHE.get(size);
        Long address = q == null ? null : q.pollFirst();
        if (address != null) {
            CACHED.addAndGet(-size);
        }
        return address;
    }

    /** Runs on the cleaner thread: keeps the mapping for reuse, evicting mappings of other sizes past the cache's limit. */
    private static void free(long address, long size) {
        LIVE.addAndGet(-size);
        CACHE.computeIfAbsent(size, k -> new ConcurrentLinkedDeque<>()).addFirst(address);
        CACHED.addAndGet(size);
        while (CACHED.get() > CACHE_LIMIT && evict(size)) {
            // the newest sizes stay: a loop's temporaries are all of a few sizes
        }
    }

    /** Unmaps one cached mapping, of another size than {@code keep} if there is one; false if none is left. */
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
