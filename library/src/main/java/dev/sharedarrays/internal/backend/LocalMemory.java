package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
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
 * its mapping goes to a {@link MappingCache} for the next arrays, already faulted in, as malloc
 * hands numpy a freed block. The collector does not see the size of a mapping, so a loop of large
 * temporaries would outrun it; as the JDK does for direct buffers, a mapping that would take the
 * live total past a limit first asks for a collection and waits briefly for the cleaner; the
 * limit is then what is still in use plus the room ({@link #ROOM_RESULTS}), and the cache keeps what one
 * collection frees. Where System.gc() does nothing ({@code -XX:+DisableExplicitGC}) the limit just
 * moves on, and the collections the heap needs free the mappings. Thread-safe.
 */
final class LocalMemory {
    /** Arrays of at most this many bytes live in their control block's block ({@link #withControl}); larger ones are mappings. */
    static final long INLINE_MAX = 256L << 10;
    /** Inline data of more bytes counts towards the live total; smaller costs about what its control block does. */
    private static final long COUNTED_MIN = 4L << 10;
    private static final long MIN_LIMIT = 512L << 20;
    /**
     * Results of a size that fit the room before a collection: a loop of them then collects on at
     * most one call in 12, and 11 in 12 reuse a cached mapping (a full collection costs 7-20 ms
     * here, about a 128 MiB result's time; collecting every 512 MiB made every 4th such call pay it).
     */
    private static final long ROOM_RESULTS = 12;
    /** The room's ceiling: 1/16 of the machine's memory (or cgroup limit), and never below {@link #MIN_LIMIT}. */
    private static final long MAX_ROOM = Math.max(MIN_LIMIT, MachineMemory.bytes() / 16);
    private static final AtomicLong LIVE = new AtomicLong();
    private static final AtomicLong COLLECTIONS = new AtomicLong();
    /** Mapping lengths, and the cuts of cached mappings, are multiples of this: of every Linux page size. */
    private static final long GRAIN = 64L << 10;
    /** The smallest page size: {@link #touchTail} writes a byte this far apart, once in every page. */
    private static final long TOUCH_STRIDE = 4096;
    /** Freed mappings, for the next arrays: a rest of at most {@link #INLINE_MAX} bytes goes with the cut, as no mapping would take it. */
    private static final MappingCache CACHE = new MappingCache(GRAIN, INLINE_MAX, Libc::munmap);
    private static final Object ROOM_LOCK = new Object();
    /** The live total past which an allocation first asks for a collection. */
    private static final AtomicLong LIMIT = new AtomicLong(MIN_LIMIT);
    /** Unreachable bytes allowed before a collection: {@link #ROOM_RESULTS} mappings of the largest length asked for, within {@link #MAX_ROOM}, at least {@link #MIN_LIMIT}. */
    private static volatile long room = MIN_LIMIT;
    private static final Cleaner CLEANER = Cleaner.create();
    /** The last probe of whether System.gc() collects (held in a static field, so the JIT cannot elide its object). */
    private static WeakReference<Object> sentinel;

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
            reserve(data, false);
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
        grow(length);
        reserve(length, true);
        long[] piece = CACHE.take(length);
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
            touchTail(address, size, length);
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

    /**
     * Faults in the pages of a fresh mapping past its array's last byte, which the array never
     * touches: the cache joins freed mappings, and a larger array taking the joined piece would
     * otherwise fault in every such tail in its first pass (a 16M-element bool result made of
     * 300,000-byte results' mappings faulted ~290 pages a call: docs/BENCHMARKS.md). The mapping
     * is fresh, so its bytes are zero, and writing zero leaves them so.
     */
    private static void touchTail(long address, long size, long length) {
        MemorySegment m = MemorySegment.ofAddress(address).reinterpret(length);
        for (long at = size & -TOUCH_STRIDE; at < length; at += TOUCH_STRIDE) {
            m.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
        }
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

    /** Runs on close or on the cleaner thread: caches the mapping for reuse (within the room and one result more). */
    private static void free(long address, long length) {
        long r = room;
        try {
            CACHE.put(address, length, r + r / ROOM_RESULTS);
        } finally {
            // only now: an allocation waiting for the cleaner goes on when this drops the live
            // total, and should find the mapping cached
            released(length);
        }
    }

    /** Takes length bytes off the live total. */
    private static void released(long length) {
        // the limit follows what is in use down again: a step that a lagging cleaner made reserve
        // take would otherwise stand until the live total reached it, another room of garbage later
        long want = LIVE.addAndGet(-length) + room;
        LIMIT.accumulateAndGet(want, Math::min);
    }

    private static long roundUp(long n, long unit) {
        return (n + unit - 1) / unit * unit;
    }

    /**
     * Widens the room to {@link #ROOM_RESULTS} mappings of {@code length} bytes, within
     * {@link #MAX_ROOM}; it never narrows, so a program whose results change size does not
     * alternate between collecting often and caching little.
     */
    private static void grow(long length) {
        long want = Math.min(MAX_ROOM, ROOM_RESULTS * length);
        synchronized (ROOM_LOCK) {
            long was = room;
            if (want > was) {
                room = want;
                LIMIT.addAndGet(want - was);
            }
        }
    }

    /** Collections this process asked for that ran (System.gc() may do nothing). */
    static long collections() {
        return COLLECTIONS.get();
    }

    /** Adds size to the live total, first asking for a collection if that takes it past the limit; {@code mapping}: a mapping's length, which the cache may hold. */
    private static void reserve(long size, boolean mapping) {
        if (LIVE.addAndGet(size) <= LIMIT.get()) {
            return;
        }
        LIVE.addAndGet(-size);
        if (collect()) {
            COLLECTIONS.incrementAndGet();
            awaitCleaner(size, mapping);
        }
        // room for more than is in use now (and for one array larger than the room): a large
        // working set does not collect on every allocation, and a cleaner that lags behind raises
        // the limit only by a step, which free() takes back as the cleaner catches up
        LIMIT.set(LIVE.get() + Math.max(room, size));
        LIVE.addAndGet(size);
    }

    /**
     * System.gc(); false if no collection ran ({@code -XX:+DisableExplicitGC}, Epsilon): then no
     * cleaner is coming, and waiting for it would stall the caller ~1 s per room. An object only a
     * weak reference reaches is gone after a collection.
     */
    private static boolean collect() {
        WeakReference<Object> probe = new WeakReference<>(new Object());
        sentinel = probe;
        System.gc();
        return probe.refersTo(null);
    }

    /**
     * The cleaner thread frees after the collection: give it a moment, as java.nio.Bits does; once
     * there is room, a mapping also waits a few ms for a cached piece that fits while the cleaner
     * is still freeing (the first freed may be a smaller result's, and a fresh mapping costs 45 ms
     * per 128 MiB here).
     */
    private static void awaitCleaner(long size, boolean mapping) {
        long seen = -1;
        int afterRoom = 0;
        for (long sleep = 1; sleep <= 512; ) {
            long now = LIVE.get();
            boolean enough = now + size <= LIMIT.get();
            if (enough && (!mapping || afterRoom == 4 || now == seen || CACHE.fits(size))) {
                return;
            }
            seen = now;
            try {
                Thread.sleep(enough ? 1 : sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (enough) {
                afterRoom++;
            } else {
                sleep <<= 1;
            }
        }
    }
}
