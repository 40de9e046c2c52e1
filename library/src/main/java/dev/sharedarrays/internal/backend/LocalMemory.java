package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of process-local arrays, which the garbage collector frees once no array, view or
 * data segment reaches it, or closing the array frees at once.
 *
 * <p>Small arrays live in one native block with their control block ({@link #withControl}),
 * not on the Java heap: the SIMD loops then only ever see native segments, and C2 compiles
 * their Vector API loads and stores for one segment class (a heap segment reaching a loop made
 * it fall back to element-by-element Java, for native rows too). Those of more than
 * {@link #COUNTED_MIN} bytes count towards the live total below, as the collector does not see
 * their size either. Larger arrays are private anonymous mappings, in small pages unless {@link LocalHugePages} says
 * huge ones come cheap. When the array is closed, or the collector finds its memory unreachable,
 * its mapping goes to a cache for the next array of that size or smaller, already faulted in, as
 * malloc hands numpy a freed block; past {@link #CACHE_LIMIT} bytes, cached mappings of other
 * lengths are unmapped first. The collector does not see the size of a mapping, so a loop of
 * large temporaries would outrun it; as the JDK does for direct buffers, a mapping that would
 * take the live total past a limit first asks for a collection and waits briefly for the
 * cleaner; the limit is then what is still in use plus {@link #MIN_LIMIT}. Thread-safe.
 */
final class LocalMemory {
    /** Arrays of at most this many bytes live in their control block's block ({@link #withControl}); larger ones are mappings. */
    static final long INLINE_MAX = 256L << 10;
    /** Inline data of more bytes counts towards the live total; smaller costs about what its control block does. */
    private static final long COUNTED_MIN = 4L << 10;
    private static final long MIN_LIMIT = 512L << 20;
    private static final long CACHE_LIMIT = 512L << 20;
    private static final AtomicLong LIVE = new AtomicLong();
    /** Mapping lengths, and the cuts of cached mappings, are multiples of this: of every Linux page size. */
    private static final long GRAIN = 64L << 10;
    /** Cached mappings by length, newest first; no empty lists. Guarded by itself, as is {@link #cached}. */
    private static final TreeMap<Long, ArrayDeque<Long>> CACHE = new TreeMap<>();
    private static long cached;
    private static volatile long limit = MIN_LIMIT;
    private static final Cleaner CLEANER = Cleaner.create();

    private LocalMemory() {
    }

    /**
     * One zero-filled native block of {@code head} bytes and then {@code size} bytes (from a
     * 64-byte boundary) for a small array's data, freed once the collector finds it unreachable.
     */
    static MemorySegment withControl(long head, long size) {
        if (size > INLINE_MAX) {
            throw new IllegalArgumentException(size + " bytes is no small array");
        }
        long data = roundUp(size, 64);
        boolean counted = size > COUNTED_MIN;
        if (counted) {
            reserve(data);
        }
        MemorySegment block;
        try {
            block = Arena.ofAuto().allocate(roundUp(head, 64) + data, 64);
        } catch (RuntimeException | Error e) {
            if (counted) {
                released(data);
            }
            throw e;
        }
        if (counted) {
            CLEANER.register(block.scope(), () -> released(data));
        }
        return block;
    }

    /** The data of an array {@link #withControl} made, {@code size} bytes after its {@code head} bytes. */
    static MemorySegment dataOf(MemorySegment block, long head, long size) {
        return block.asSlice(roundUp(head, 64), size);
    }

    /**
     * Memory of {@code size} (more than {@link #INLINE_MAX}) bytes, freed when unreachable or its
     * arena is closed; zero-filled if {@code zeroed}, else of any content.
     */
    static Allocation allocate(long size, boolean zeroed) {
        if (size <= INLINE_MAX) {
            throw new IllegalArgumentException(size + " bytes belong in the control block's block");
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
            boolean huge = LocalHugePages.advise(roundUp(length, LocalHugePages.PMD));
            if (huge) {
                // a multiple of the huge page size: the kernel then aligns the mapping to one
                long rounded = roundUp(length, LocalHugePages.PMD);
                LIVE.addAndGet(rounded - length);
                length = rounded;
            }
            try {
                address = Libc.mmap(length, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0,
                        "process-local array");
            } catch (RuntimeException | Error e) {
                LIVE.addAndGet(-length);
                throw e;
            }
            if (huge) {
                Libc.madvise(address, length, Libc.MADV_HUGEPAGE);
            }
        }
        // a shared arena, so that closing the array frees at once (a view or data segment still
        // held then fails cleanly); else the cleaner frees once no segment reaches its scope
        Arena arena = Arena.ofShared();
        Release release = new Release(address, length);
        MemorySegment s = MemorySegment.ofAddress(address).reinterpret(size, arena, unused -> release.run());
        CLEANER.register(s.scope(), release);
        if (piece != null && zeroed) {
            s.fill((byte) 0);
        }
        return new Allocation(s, arena);
    }

    /** A process-local array's memory, and the arena whose close frees it at once (null: the collector frees it). */
    record Allocation(MemorySegment data, Arena arena) {
    }

    /** Frees a mapping once, whether its arena was closed or the collector found its scope unreachable. */
    private static final class Release implements Runnable {
        private final long address;
        private final long length;
        private final AtomicBoolean done = new AtomicBoolean();

        Release(long address, long length) {
            this.address = address;
            this.length = length;
        }

        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                free(address, length);
            }
        }
    }

    /** Bytes of process-local arrays not yet freed: mappings, and small arrays' data of more than {@link #COUNTED_MIN} bytes. */
    static long live() {
        return LIVE.get();
    }

    /**
     * A cached mapping of at least {@code length} bytes as {address, its length}, or null: one of
     * that length, else the front of the smallest longer one (the rest stays cached; lengths are
     * multiples of {@link #GRAIN}, so both parts stay page-aligned), as malloc splits a free
     * block. A 64 MiB result thus reuses half of a freed 128 MiB one, already faulted in.
     */
    private static long[] take(long length) {
        synchronized (CACHE) {
            var e = CACHE.ceilingEntry(length);
            if (e == null) {
                return null;
            }
            long have = e.getKey();
            long address = e.getValue().pollFirst();
            if (e.getValue().isEmpty()) {
                CACHE.remove(have);
            }
            cached -= have;
            if (have - length <= INLINE_MAX) {
                return new long[] {address, have}; // no array would take the rest
            }
            keep(address + length, have - length);
            return new long[] {address, length};
        }
    }

    /** Runs on close or on the cleaner thread: keeps the mapping for reuse, evicting other lengths first past the cache's limit. */
    private static void free(long address, long length) {
        released(length);
        synchronized (CACHE) {
            keep(address, length);
            // the newest length stays longest: a loop's temporaries are all of a few sizes
            while (cached > CACHE_LIMIT) {
                var e = CACHE.firstKey() != length ? CACHE.firstEntry() : CACHE.size() > 1 ? CACHE.higherEntry(length) : CACHE.firstEntry();
                long victim = e.getKey();
                long at = e.getValue().pollLast();
                if (e.getValue().isEmpty()) {
                    CACHE.remove(victim);
                }
                cached -= victim;
                try {
                    Libc.munmap(at, victim);
                } catch (RuntimeException ex) {
                    // never on a page-aligned cached mapping; if it happens the mapping is lost, not reused
                }
            }
        }
    }

    /** Takes length bytes off the live total. */
    private static void released(long length) {
        // the limit follows what is in use down again: a step that a lagging cleaner made reserve
        // take would otherwise stand until the live total reached it, another 512 MiB of garbage later
        long want = Math.max(MIN_LIMIT, LIVE.addAndGet(-length) + MIN_LIMIT);
        if (want < limit) {
            limit = want;
        }
    }

    /** Caches a mapping; the caller holds CACHE. */
    private static void keep(long address, long length) {
        CACHE.computeIfAbsent(length, k -> new ArrayDeque<>()).addFirst(address);
        cached += length;
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
        // allocation, and a cleaner that lags behind raises the limit only by a step, which free()
        // takes back as the cleaner catches up
        limit = LIVE.get() + MIN_LIMIT;
        LIVE.addAndGet(size);
    }
}
