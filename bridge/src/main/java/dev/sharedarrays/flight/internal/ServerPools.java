package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.DType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;

/**
 * The pools the server makes for remote producers (DoPut queue/&lt;name&gt;): one per queue,
 * element type and shape, made at a stream's first batch (a schema alone makes none), shared by
 * the streams that put the same tensors into the same queue. At most {@code maxPools} of them,
 * holding at most {@code maxBytes} together; past that a put is refused with RESOURCE_EXHAUSTED.
 * A pool no stream uses is closed as soon as all its slots are back (none in flight in a queue,
 * none held by a receiver): {@link #reap} runs at every stream's start and end and once a second.
 * Thread-safe.
 */
final class ServerPools implements AutoCloseable {
    private final int maxPools;
    private final long maxBytes;
    private final Map<String, Entry> pools = new HashMap<>();
    private long bytes;

    ServerPools(int maxPools, long maxBytes) {
        this.maxPools = maxPools;
        this.maxBytes = maxBytes;
    }

    /** A pool and the streams that use it. */
    static final class Entry {
        final ArrayPool<?> pool;
        final long bytes;
        private int users;

        private Entry(ArrayPool<?> pool, long bytes) {
            this.pool = pool;
            this.bytes = bytes;
        }
    }

    /**
     * The pool for tensors {@code s} put into queue {@code queue} of this capacity, made if there is
     * none; {@link #done} when the stream ends.
     *
     * @throws org.apache.arrow.flight.FlightRuntimeException RESOURCE_EXHAUSTED past maxPools or maxBytes
     */
    Entry use(String queue, TensorSchema s, int capacity) {
        List<ArrayPool<?>> idle;
        Entry e;
        synchronized (this) {
            idle = takeIdle();
            String key = queue + " " + s.dtype() + Arrays.toString(s.shape());
            e = pools.get(key);
            if (e == null) {
                int slots = Math.max(2, Math.min(capacity, 8)); // a few: the queue bounds what waits
                long need = slots > Long.MAX_VALUE / Math.max(1, s.bytes()) ? Long.MAX_VALUE : slots * s.bytes();
                if (pools.size() >= maxPools) {
                    closeAll(idle);
                    throw CallStatus.RESOURCE_EXHAUSTED.withDescription("this server holds " + pools.size() + " pools for remote producers,"
                            + " the most it allows (ServeOptions.maxPools, serve --max-pools = " + maxPools + "); a pool goes once no"
                            + " stream uses it and its slots are back").toRuntimeException();
                }
                if (need > maxBytes - bytes) {
                    closeAll(idle);
                    throw CallStatus.RESOURCE_EXHAUSTED.withDescription("a pool of " + slots + " slots of " + s + " for queue/" + queue
                            + " needs " + need + " bytes; this server's pools for remote producers hold " + bytes + " of at most "
                            + maxBytes + " (ServeOptions.maxPoolBytes, serve --max-pool-bytes)").toRuntimeException();
                }
                e = new Entry(create(s.dtype(), slots, s.shape()), need);
                pools.put(key, e);
                bytes += need;
            }
            e.users++;
        }
        closeAll(idle);
        return e;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ArrayPool<?> create(DType dtype, int slots, long[] shape) {
        return ArrayPool.create(dtype, slots, shape.length == 0 ? new long[] {1} : shape);
    }

    /** The stream that used {@code e} ended. */
    void done(Entry e) {
        synchronized (this) {
            e.users--;
        }
        reap();
    }

    /** Closes the pools no stream uses whose slots are all back. */
    void reap() {
        List<ArrayPool<?>> idle;
        synchronized (this) {
            idle = takeIdle();
        }
        closeAll(idle);
    }

    /** Under the lock: removes the idle pools and returns them, to be closed outside it. */
    private List<ArrayPool<?>> takeIdle() {
        List<ArrayPool<?>> out = new ArrayList<>();
        pools.values().removeIf(e -> {
            boolean idle = e.users == 0 && freeOrGone(e.pool);
            if (idle) {
                bytes -= e.bytes;
                out.add(e.pool);
            }
            return idle;
        });
        return out;
    }

    private static boolean freeOrGone(ArrayPool<?> p) {
        try {
            return p.free() == p.slots();
        } catch (RuntimeException e) {
            return true; // closed or truncated under us: nothing left to wait for
        }
    }

    private static void closeAll(List<ArrayPool<?>> pools) {
        for (ArrayPool<?> p : pools) {
            try {
                p.close();
            } catch (RuntimeException e) {
                // a pool that will not close: its file goes with the server's process
            }
        }
    }

    /** Pools now held, for tests and the listing. */
    synchronized int size() {
        return pools.size();
    }

    @Override
    public void close() {
        List<ArrayPool<?>> all;
        synchronized (this) {
            all = new ArrayList<>();
            pools.values().forEach(e -> all.add(e.pool));
            pools.clear();
            bytes = 0;
        }
        closeAll(all);
    }
}
