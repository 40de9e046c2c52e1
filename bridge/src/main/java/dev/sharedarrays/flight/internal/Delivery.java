package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The delivery pump, one for both ends of the bridge. {@link #send} takes a queue's arrays and
 * writes them as frames: the server's DoGet and the client's forward. {@link #receive} copies the
 * rows of received frames into pool slots and sends those into a queue: the server's DoPut and the
 * client's pull. Below it the codec ({@link Frames}, {@link Incoming}, {@link Outgoing}) knows bytes
 * and messages only; above it the ends (BridgeProducer, Forwarding, Pulling) open the calls and name
 * the queues and pools. Each pump runs on its caller's thread; its waits look at {@code stop} every
 * {@link Stopped#SLICE} and throw {@link Stopped} once it says so.
 */
public final class Delivery {
    private Delivery() {
    }

    /** One end's part in sending: the stream the frames go to, and what a wrong array says. */
    public interface Sender {
        /** The stream, opened once the first array's type is known ({@code first} null: the queue ended without one). */
        Outgoing open(TensorSchema first);

        /** The descriptor the schema message carries (a DoPut's first message), or null. */
        default FlightDescriptor descriptor() {
            return null;
        }

        /** What ends the stream when an array of {@code got} follows arrays of {@code stream} (the array is dropped). */
        RuntimeException mismatch(TensorSchema got, TensorSchema stream);
    }

    /**
     * How fast a stream may go: at most {@code maxInFlight} arrays that gRPC has not let go of, and
     * {@link Stalled} (with {@code stalled}'s message, given how many wait) once gRPC let go of none
     * for {@code stallNanos} while the next could not go.
     */
    public record Pace(int maxInFlight, long stallNanos, IntFunction<String> stalled) {
        /** gRPC's flow control alone (a client's forward). */
        public static final Pace FLOW_CONTROL = new Pace(Integer.MAX_VALUE, Long.MAX_VALUE, waiting -> "");

        /** Until {@code out} may take another array. */
        void await(Outgoing out, InFlight inFlight, BooleanSupplier stop) {
            if (this == FLOW_CONTROL) {
                Waits.ready(out::isReady, stop);
            } else {
                Waits.until(() -> out.isReady() && inFlight.held() < maxInFlight, stop, inFlight::released, stallNanos,
                        () -> stalled.apply(inFlight.held()));
            }
        }
    }

    /**
     * Sends the arrays of {@code queue} until it ends: a schema message first (an empty schema if
     * the queue ended without an array), then each array as a one-row batch, from its own memory.
     * Each array is closed (a pool slot goes back) once gRPC let go of it; {@code inFlight} counts
     * those gRPC still holds. The next array is taken from the queue only once {@code pace} lets it
     * go. {@code sent} runs after each array. Every array the pump took and did not hand to gRPC
     * is closed when it returns or throws.
     *
     * @return the number of arrays sent
     * @throws Stopped if {@code stop} said so
     * @throws Stalled if the other end took nothing for {@code pace.stallNanos()}
     */
    public static long send(ArrayQueue queue, Sender end, Pace pace, InFlight inFlight, BooleanSupplier stop, Runnable sent) {
        SharedNDArray<?> m = Waits.receive(queue, stop);
        try {
            TensorSchema schema = m == null ? null : new TensorSchema(m.dtype(), m.shape());
            Schema arrow = schema == null ? new Schema(List.of()) : schema.toArrow();
            Outgoing out = end.open(schema);
            out.send(Frames.schema(arrow, end.descriptor()));
            ByteBuffer header = schema == null ? null : Frames.batchHeader(schema);
            long n = 0;
            while (m != null) {
                TensorSchema s = new TensorSchema(m.dtype(), m.shape());
                if (!s.equals(schema)) {
                    throw end.mismatch(s, schema);
                }
                SharedNDArray<?> a = m;
                m = null;
                inFlight.add();
                out.send(batch(header, a, () -> {
                    a.close();
                    inFlight.release();
                }));
                n++;
                sent.run();
                pace.await(out, inFlight, stop);
                m = Waits.receive(queue, stop);
            }
            return n;
        } finally {
            if (m != null) {
                m.close();
            }
        }
    }

    /**
     * The array as a one-row batch with IPC header {@code header} ({@link Frames#batchHeader}). A
     * contiguous array is sent from its own memory and {@code release} runs once gRPC wrote it (or
     * dropped it); a strided view is copied first and {@code release} runs at once.
     */
    public static Frame batch(ByteBuffer header, SharedNDArray<?> a, Runnable release) {
        long bytes;
        MemorySegment body;
        try {
            bytes = Math.multiplyExact(a.size(), a.itemSize());
            body = a.isContiguous() ? a.data().asSlice(a.elementOffset() * a.itemSize(), bytes) : null;
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
        if (body != null) {
            return Frames.batch(header, body, release);
        }
        try {
            return Frames.batchCopy(header, bytes, dst -> copyStrided(a, dst));
        } finally {
            release.run();
        }
    }

    /**
     * Each row of each batch {@code in} brings, into a slot of the pool {@code pool} gives at the
     * first batch (a schema alone takes none), sent into {@code queue}; waits while the pool has
     * no free slot or the queue is full. {@code sent} runs after each row. Returns at the end of
     * the stream; the caller ends the queue.
     *
     * @param schema the stream's Arrow schema, read from its first message
     * @return the number of rows sent into {@code queue}
     * @throws Stopped if {@code stop} said so
     */
    public static long receive(Incoming in, Schema schema, Supplier<? extends ArrayPool<?>> pool, ArrayQueue queue, BooleanSupplier stop,
                               Runnable sent) {
        TensorSchema s = TensorSchema.of(schema);
        ArrayPool<?> slots = null;
        long n = 0;
        Frame f;
        while ((f = in.nextBatch()) != null) {
            try (Frame batch = f) {
                if (slots == null) {
                    slots = pool.get();
                }
                Frames.Rows rows = new Frames.Rows(batch, schema, s);
                for (long r = 0; r < rows.count(); r++) {
                    SharedNDArray<?> slot = Waits.acquire(slots, stop);
                    boolean gone = false;
                    try {
                        rows.next(slot.data().asSlice(slot.elementOffset() * slot.itemSize(), rows.rowBytes()));
                        Waits.send(queue, slot, stop);
                        gone = true;
                    } finally {
                        if (!gone) {
                            slot.close();
                        }
                    }
                    n++;
                    sent.run();
                }
            }
        }
        return n;
    }

    /** Copies a strided view element by element (rare: queues and arrays are mostly contiguous). */
    /** A strided view's elements in row-major order, through a contiguous copy (every element type as it is). */
    private static void copyStrided(SharedNDArray<?> array, MemorySegment dst) {
        try (SharedNDArray<?> c = array.copy()) {
            MemorySegment.copy(c.data(), c.elementOffset() * c.itemSize(), dst, 0, c.size() * c.itemSize());
        }
    }
}
