package dev.sharedarrays.internal.backend;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Freed process-local mappings kept for the next arrays, as malloc keeps freed blocks: a request
 * takes a cached piece of its length, else the front of the smallest longer one (the rest stays
 * cached); a freed piece joins cached ones right before and after it, so the halves of a 128 MiB
 * mapping that two 64 MiB results took make one 128 MiB piece again once both are freed (adjacent
 * mappings of ours unmap and read as one). Past a size the excess is unmapped, from the smallest
 * pieces first (the fragments a loop's results are least likely to fit), each cut from its end.
 * Thread-safe.
 */
final class MappingCache {
    /** Unmaps memory this cache gave up. */
    interface Unmapper {
        void unmap(long address, long length);
    }

    private final long grain;
    private final long minRest;
    private final Unmapper unmapper;
    /** Pieces by length, newest first; no empty lists. */
    private final TreeMap<Long, ArrayDeque<Long>> byLength = new TreeMap<>();
    /** The same pieces by address, to their lengths. */
    private final TreeMap<Long, Long> byAddress = new TreeMap<>();
    private long bytes;

    /**
     * @param grain   what lengths and cuts are multiples of (a multiple of every page size)
     * @param minRest a rest of at most this many bytes goes with the piece it was cut from
     */
    MappingCache(long grain, long minRest, Unmapper unmapper) {
        this.grain = grain;
        this.minRest = minRest;
        this.unmapper = unmapper;
    }

    /** A cached piece of at least {@code length} bytes (a multiple of the grain) as {address, its length}, or null. */
    synchronized long[] take(long length) {
        var e = byLength.ceilingEntry(length);
        if (e == null) {
            return null;
        }
        long have = e.getKey();
        long address = e.getValue().getFirst();
        remove(address, have);
        if (have - length <= minRest) {
            return new long[] {address, have};
        }
        add(address + length, have - length);
        return new long[] {address, length};
    }

    /**
     * Caches a freed piece, then unmaps what is past {@code keepAtMost} bytes in all: after leaving
     * the lock, as unmapping a large cut takes long and allocations wait on the lock.
     */
    void put(long address, long length, long keepAtMost) {
        List<long[]> cuts = new ArrayList<>();
        synchronized (this) {
            add(address, length);
            while (bytes > keepAtMost) {
                var e = byLength.firstEntry();
                long piece = e.getKey();
                long at = e.getValue().getLast();
                long cut = Math.min(piece, (bytes - keepAtMost + grain - 1) / grain * grain);
                remove(at, piece);
                if (piece - cut <= minRest) {
                    cut = piece;
                } else {
                    add(at, piece - cut);
                }
                cuts.add(new long[] {at + piece - cut, cut});
            }
        }
        // no longer cached, so no one else holds these ranges
        for (long[] range : cuts) {
            try {
                unmapper.unmap(range[0], range[1]);
            } catch (RuntimeException ex) {
                // never on page-aligned memory of ours; if it happens that memory is lost, not reused
            }
        }
    }

    /** Whether a piece of at least {@code length} bytes is cached. */
    synchronized boolean fits(long length) {
        return byLength.ceilingKey(length) != null;
    }

    /** Bytes cached. */
    synchronized long bytes() {
        return bytes;
    }

    private void add(long address, long length) {
        var before = byAddress.lowerEntry(address);
        if (before != null && before.getKey() + before.getValue() == address) {
            remove(before.getKey(), before.getValue());
            address = before.getKey();
            length += before.getValue();
        }
        Long after = byAddress.get(address + length);
        if (after != null) {
            remove(address + length, after);
            length += after;
        }
        byLength.computeIfAbsent(length, k -> new ArrayDeque<>()).addFirst(address);
        byAddress.put(address, length);
        bytes += length;
    }

    private void remove(long address, long length) {
        ArrayDeque<Long> at = byLength.get(length);
        at.remove(address);
        if (at.isEmpty()) {
            byLength.remove(length);
        }
        byAddress.remove(address);
        bytes -= length;
    }
}
