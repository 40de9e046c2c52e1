package dev.sharedarrays.spark.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The arrays this JVM's tasks read, each mapped once and shared by the tasks that read it at the
 * same time. Mapping is cheap; the first touch of each page of a new mapping is not (a page fault
 * per 4 KiB: about 0.2 s a GiB on the benchmark's machine, more than the reading). So an array of
 * lifetime {@code OWNER}, whose removal never waits on the processes attached to it, stays mapped
 * for {@link #KEEP_SECONDS} after its last task, and the next query over it finds its pages
 * mapped. It is closed at once when its name is gone or names another array (its creator closed
 * it: the memory would otherwise stay until the keep ended). Arrays of other lifetimes are
 * closed with their last task (a SHARED array's removal would wait on us, a PERSISTENT one's
 * {@code rm} would need {@code --force}).
 */
final class Attached {
    static final int KEEP_SECONDS = 10;

    private static final Map<String, Entry> ENTRIES = new HashMap<>();
    private static ScheduledExecutorService reaper;

    private Attached() {
    }

    /** One array mapped for this JVM's tasks. */
    private static final class Entry {
        final SharedNDArray<?> array;
        final boolean keep;
        int users;
        long idleSince;

        Entry(SharedNDArray<?> array, boolean keep) {
            this.array = array;
            this.keep = keep;
        }
    }

    /** A task's use of an attached array: close it when the task is done with it. */
    static final class Lease implements AutoCloseable {
        private final String key;
        private final SharedNDArray<?> array;
        private boolean closed;

        private Lease(String key, SharedNDArray<?> array) {
            this.key = key;
            this.array = array;
        }

        SharedNDArray<?> array() {
            return array;
        }

        @Override
        public void close() {
            synchronized (ENTRIES) {
                if (closed) {
                    return;
                }
                closed = true;
                Entry e = ENTRIES.get(key);
                if (e == null || e.array != array) {
                    array.close(); // not the entry's (a race of two first attaches): ours alone
                    return;
                }
                if (--e.users == 0) {
                    e.idleSince = System.nanoTime();
                    if (!e.keep) {
                        ENTRIES.remove(key);
                        array.close();
                    }
                }
            }
        }
    }

    /**
     * The array {@code handle} (with its id) names, attached or shared with the tasks that have it.
     *
     * @param keep whether it may stay mapped after its last task (its lifetime is OWNER)
     */
    static Lease acquire(String handle, boolean keep) {
        synchronized (ENTRIES) {
            Entry e = ENTRIES.get(handle);
            if (e != null && !e.array.isClosed()) {
                e.users++;
                return new Lease(handle, e.array);
            }
        }
        SharedNDArray<?> a = SharedArrays.attach(ArrayHandle.parse(handle)); // outside the lock: it may wait for a file lock
        synchronized (ENTRIES) {
            Entry e = ENTRIES.get(handle);
            if (e != null && !e.array.isClosed()) {
                return new Lease(handle, a); // another task attached first; this mapping is this task's
            }
            e = new Entry(a, keep);
            e.users = 1;
            ENTRIES.put(handle, e);
            if (keep && reaper == null) {
                reaper = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "sharedarrays-spark-mappings");
                    t.setDaemon(true);
                    return t;
                });
                reaper.scheduleWithFixedDelay(Attached::reap, 1, 1, TimeUnit.SECONDS);
            }
            return new Lease(handle, a);
        }
    }

    /** Closes the kept arrays no task uses that have been idle for the keep, or whose name has gone. */
    private static void reap() {
        try {
            reapIdle();
        } catch (RuntimeException e) {
            // a failed pass leaves the entries for the next; the reaper must not stop
        }
    }

    private static void reapIdle() {
        Map<String, Entry> idle = new HashMap<>();
        synchronized (ENTRIES) {
            for (Map.Entry<String, Entry> x : ENTRIES.entrySet()) {
                if (x.getValue().users == 0) {
                    idle.put(x.getKey(), x.getValue());
                }
            }
        }
        long now = System.nanoTime();
        for (Iterator<Map.Entry<String, Entry>> it = idle.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Entry> x = it.next();
            if (now - x.getValue().idleSince < TimeUnit.SECONDS.toNanos(KEEP_SECONDS) && stillNamed(x.getKey())) {
                it.remove();
            }
        }
        synchronized (ENTRIES) {
            for (Map.Entry<String, Entry> x : idle.entrySet()) {
                Entry e = ENTRIES.get(x.getKey());
                if (e == x.getValue() && e.users == 0) {
                    ENTRIES.remove(x.getKey());
                    e.array.close();
                }
            }
        }
    }

    /** Whether the handle's name still names the array of its id. */
    private static boolean stillNamed(String handle) {
        try {
            ArrayHandle h = ArrayHandle.parse(handle);
            return h.id().isEmpty() || SharedArrays.inspect(h).id() == h.id().getAsLong();
        } catch (RuntimeException e) {
            return false; // gone, or no longer an array of ours: either way not the array we hold
        }
    }
}
