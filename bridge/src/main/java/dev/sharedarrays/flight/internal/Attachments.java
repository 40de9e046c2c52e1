package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SharedArrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.flight.CallStatus;

/**
 * What the server holds open for remote streams: one attachment per array or queue, shared by
 * all of its streams, and at most {@code maxStreams} streams per segment. Each attach would take
 * one of the segment's attach slots, which local processes need (64 remote streams would leave
 * none); the cap refuses the next stream with RESOURCE_EXHAUSTED instead.
 *
 * <p>An attachment is closed when its last stream ended and gRPC let go of the last buffer sent
 * from its memory ({@link Held#retain}, {@link Held#release}). A name that now names another
 * segment (removed and made again: another id) gets a new attachment; the old one lives on for
 * the streams that have it. Thread-safe.
 */
final class Attachments {
    private final int maxStreams;
    private final String option;
    private final Map<String, Held> held = new HashMap<>();

    /** option: the setting that raises the cap, for the refusal's message. */
    Attachments(int maxStreams, String option) {
        this.maxStreams = maxStreams;
        this.option = option;
    }

    /** One open segment: what was attached, and who still uses it. */
    final class Held {
        final String key;
        final AutoCloseable value;
        private final long id;
        private int streams;
        private int refs;

        private Held(String key, AutoCloseable value, long id) {
            this.key = key;
            this.value = value;
            this.id = id;
        }

        /** A buffer of its memory went to gRPC: kept open until {@link #release}. */
        void retain() {
            synchronized (Attachments.this) {
                refs++;
            }
        }

        /** A buffer gRPC let go of, or the end of a stream ({@link #endStream}). */
        void release() {
            boolean last;
            synchronized (Attachments.this) {
                last = --refs == 0;
                if (last && held.get(key) == this) {
                    held.remove(key);
                }
            }
            if (last) {
                try {
                    value.close();
                } catch (Exception e) {
                    // closing a queue or array: nothing left to do
                }
            }
        }

        /** The stream that opened it ended (its buffers may still be in gRPC's hands). */
        void endStream() {
            synchronized (Attachments.this) {
                streams--;
            }
            release();
        }
    }

    /**
     * A new stream's use of the segment {@code p} names: its shared attachment (made with
     * {@code attach} if there is none, or the name now names another segment).
     *
     * @throws org.apache.arrow.flight.FlightRuntimeException RESOURCE_EXHAUSTED if it has
     *         maxStreams streams already
     */
    <T extends AutoCloseable> Held open(FlightPath p, Function<ArrayHandle, T> attach, Function<T, Long> idOf) {
        ArrayHandle h = ArrayHandle.parse("shm://" + p.name());
        String key = p.toString();
        synchronized (this) {
            Held e = held.get(key);
            if (e != null && e.id != currentId(h)) {
                held.remove(key); // the name names another segment now: the streams that have the old one keep it
                e = null;
            }
            if (e == null) {
                T value = attach.apply(h);
                e = new Held(key, value, idOf.apply(value));
                held.put(key, e);
            }
            if (e.streams >= maxStreams) {
                throw CallStatus.RESOURCE_EXHAUSTED.withDescription(p + " has " + e.streams + " remote streams already, the most this server"
                        + " allows (" + option + " = " + maxStreams + "); try again when one ends").toRuntimeException();
            }
            e.streams++;
            e.refs++;
            return e;
        }
    }

    private static long currentId(ArrayHandle h) {
        try {
            return SharedArrays.inspect(h).id();
        } catch (RuntimeException e) {
            return 0; // gone or not ours: the next attach says which
        }
    }
}
