package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.DType;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.flight.ServeOptions;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The server side: arrays and queues of this host's shm directory as Flight streams (DoGet and
 * DoPut through {@link FrameService}, the listings through Arrow's service).
 * DoGet queue/<name> is a consumer of the queue, DoPut queue/<name> a producer into it through
 * a pool of this server's ({@link ServerPools}). Remote streams share one attachment per segment
 * ({@link Attachments}) and hold at most {@link ServeOptions#maxInFlightPerStream} messages not
 * yet on the wire; a reader that takes nothing for the stall timeout is ended. The queues' streams
 * go through the delivery pump ({@link Delivery}), which the client's forward and pull use too.
 */
public final class BridgeProducer extends NoOpFlightProducer implements FrameService.Handler, AutoCloseable {
    private final Attachments arrays;
    private final Attachments queues;
    private final ServerPools pools;
    private final int maxInFlight;
    private final long stallNanos;
    private final java.util.concurrent.ScheduledExecutorService reaper;
    private volatile boolean closed;

    public BridgeProducer(ServeOptions o) {
        String streams = "ServeOptions.maxStreamsPerSegment, serve --max-streams";
        this.arrays = new Attachments(o.maxStreamsPerSegment(), streams);
        this.queues = new Attachments(o.maxStreamsPerSegment(), streams);
        this.pools = new ServerPools(o.maxPools(), o.maxPoolBytes());
        this.maxInFlight = o.maxInFlightPerStream();
        this.stallNanos = o.stallTimeout().toNanos();
        this.reaper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sharedarrays-flight-pools");
            t.setDaemon(true);
            return t;
        });
        reaper.scheduleWithFixedDelay(pools::reap, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** What a call's exception tells the client. */
    @Override
    public FlightRuntimeException toFlight(Throwable e) {
        if (e instanceof Stopped) {
            return CallStatus.CANCELLED.withDescription("the client went away or the server is stopping").toRuntimeException();
        }
        if (e instanceof Stalled) {
            return CallStatus.TIMED_OUT.withDescription(e.getMessage()).toRuntimeException();
        }
        return Errors.toFlight(e);
    }

    /** DoGet: the array or the queue the ticket names, to {@code out}, until the queue ends. */
    @Override
    public void serveGet(byte[] ticket, Outgoing out, BooleanSupplier gone) {
        FlightPath p = FlightPath.of(new org.apache.arrow.flight.Ticket(ticket));
        BooleanSupplier stop = () -> closed || gone.getAsBoolean();
        if (p.kind().equals(FlightPath.ARRAY)) {
            sendArray(p, out);
        } else {
            sendQueue(p, out, stop);
        }
    }

    private Attachments.Held openArray(FlightPath p) {
        return arrays.open(p, SharedArrays::attach, SharedNDArray::id);
    }

    private Attachments.Held openQueue(FlightPath p) {
        return queues.open(p, ArrayQueue::attach, q -> q.handle().id().orElse(0));
    }

    private void sendArray(FlightPath p, Outgoing out) {
        Attachments.Held held = openArray(new FlightPath(p.kind(), p.name()));
        try {
            SharedNDArray<?> a = (SharedNDArray<?>) held.value;
            if (p.ranged()) {
                if (p.to() > a.shape()[0]) {
                    throw new IllegalArgumentException(p + ": the array has " + a.shape()[0] + " rows");
                }
                a = a.slice(0, p.from(), p.to(), 1);
            }
            TensorSchema s = new TensorSchema(a.dtype(), a.shape());
            out.send(Frames.schema(s.toArrow(), null));
            held.retain(); // the array stays mapped until gRPC let go of its memory
            out.send(Delivery.batch(Frames.batchHeader(s), a, held::release));
        } finally {
            held.endStream();
        }
    }

    private void sendQueue(FlightPath p, Outgoing out, BooleanSupplier stop) {
        Attachments.Held held = openQueue(p);
        // the queue maps the pools its messages live in: open until gRPC let go of the last one sent
        held.retain();
        InFlight inFlight = new InFlight(held::release);
        Delivery.Pace pace = new Delivery.Pace(maxInFlight, stallNanos, waiting -> "the client of DoGet " + p + " took nothing for "
                + stallNanos / 1_000_000 + " ms while " + waiting + " message(s) waited for it; the stream was ended so that their pool"
                + " slots go back (ServeOptions.stallTimeout, serve --stall-timeout)");
        try {
            Delivery.send((ArrayQueue) held.value, new Delivery.Sender() {
                @Override
                public Outgoing open(TensorSchema first) {
                    return out;
                }

                @Override
                public RuntimeException mismatch(TensorSchema got, TensorSchema stream) {
                    return new IllegalArgumentException("queue " + p.name() + " sent a " + got + " array into a stream of " + stream
                            + "; a Flight stream carries one element type and shape (the message was dropped)");
                }
            }, pace, inFlight, stop, () -> { });
        } finally {
            inFlight.end();
            held.endStream();
        }
    }

    /** DoPut: the stream into the array or the queue its descriptor names. */
    @Override
    public void servePut(Incoming in, BooleanSupplier gone) {
        BooleanSupplier stop = () -> closed || gone.getAsBoolean();
        try (Frame first = in.next()) {
            if (first == null || first.descriptor() == null) {
                throw new IllegalArgumentException("DoPut without a descriptor in its first message; name array/<name> or queue/<name>");
            }
            FlightPath p = FlightPath.of(first.descriptor());
            if (p.ranged()) {
                throw new IllegalArgumentException("DoPut " + p + ": a put names a whole array or queue, not rows of one");
            }
            if (!first.isSchema()) {
                throw new IllegalArgumentException("DoPut " + p + " did not start with a schema");
            }
            Schema schema = first.schema();
            if (p.kind().equals(FlightPath.ARRAY)) {
                receiveArray(p, schema, in);
            } else {
                receiveQueue(p, schema, in, stop);
            }
        }
    }

    /** One batch of n rows: a new array of the tensor's shape (n = 1) or (n, *shape); persistent, as no process holds it. */
    private void receiveArray(FlightPath p, Schema schema, Incoming in) {
        TensorSchema s = TensorSchema.of(schema);
        try (Frame f = in.nextBatch()) {
            if (f == null) {
                throw new IllegalArgumentException("DoPut " + p + " sent no batch; send one batch with the array");
            }
            Frames.Rows rows = new Frames.Rows(f, schema, s);
            if (rows.count() < 1) {
                throw new IllegalArgumentException("DoPut " + p + " sent a batch of 0 rows");
            }
            int n = (int) rows.count();
            long[] shape = n == 1 ? s.shape() : prepend(n, s.shape());
            SharedNDArray<?> a = SharedArrays.createAny(s.dtype(), shape,
                    CreateOptions.defaults().name(p.name()).backend(Backend.SHM).lifetime(Lifetime.PERSISTENT));
            boolean ok = false;
            try {
                MemorySegment dst = a.data();
                for (int r = 0; r < n; r++) {
                    rows.next(dst.asSlice(r * s.bytes(), s.bytes()));
                }
                try (Frame more = in.nextBatch()) {
                    if (more != null) {
                        throw new IllegalArgumentException("DoPut " + p + " sent more than one batch; send the array as one batch");
                    }
                }
                ok = true;
            } finally {
                if (ok) {
                    a.close();
                } else {
                    a.destroy();
                }
            }
        }
    }

    private static long[] prepend(long n, long[] shape) {
        long[] r = new long[shape.length + 1];
        r[0] = n;
        System.arraycopy(shape, 0, r, 1, shape.length);
        return r;
    }

    private void receiveQueue(FlightPath p, Schema schema, Incoming in, BooleanSupplier stop) {
        Attachments.Held held = openQueue(p);
        ServerPools.Entry[] pool = {null};
        try {
            ArrayQueue q = (ArrayQueue) held.value;
            if (schema.getFields().isEmpty()) {
                in.skipToEnd(); // a producer with nothing to send: only its end counts
                q.end();
                return;
            }
            TensorSchema s = TensorSchema.of(schema);
            // the pool at the first batch: a schema alone holds no memory
            Delivery.receive(in, schema, () -> (pool[0] = pools.use(p.name(), s, q.capacity())).pool, q, stop, () -> { });
            // the remote producer finished its stream: the queue ends, as a local producer's end() would
            q.end();
        } finally {
            if (pool[0] != null) {
                pools.done(pool[0]);
            }
            held.endStream();
        }
    }

    @Override
    public void listFlights(CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
        try {
            for (FlightInfo i : infos()) {
                listener.onNext(i);
            }
            listener.onCompleted();
        } catch (RuntimeException e) {
            listener.onError(Errors.toFlight(e));
        }
    }

    @Override
    public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
        FlightPath p = FlightPath.of(descriptor);
        for (FlightInfo i : infos()) {
            if (i.getDescriptor().getPath().equals(p.descriptor().getPath())) {
                return i;
            }
        }
        throw CallStatus.NOT_FOUND.withDescription("no " + p.kind() + " named " + p.name() + " in " + SharedArrays.shmDirectory()).toRuntimeException();
    }

    /** (FlightInfo takes bytes before records.) What {@code sharedarrays ls} shows of the shm directory: arrays, pools and queues (by name). */
    private List<FlightInfo> infos() {
        List<FlightInfo> out = new ArrayList<>();
        for (SegmentInfo i : SharedArrays.list()) {
            if (i.backend() != Backend.SHM || i.path() == null) {
                continue;
            }
            String name = i.path().getFileName().toString();
            switch (i.kind()) {
                case ARRAY -> {
                    FlightPath p = new FlightPath(FlightPath.ARRAY, name);
                    out.add(new FlightInfo(schemaOrEmpty(i.dtype(), i.shape()), p.descriptor(),
                            List.of(new FlightEndpoint(p.ticket())), i.bytes(), 1));
                }
                case QUEUE -> {
                    FlightPath p = new FlightPath(FlightPath.QUEUE, name);
                    out.add(new FlightInfo(new Schema(List.of()), p.descriptor(), List.of(new FlightEndpoint(p.ticket())), -1, i.used()));
                }
                case POOL -> {
                    long[] shape = i.shape();
                    out.add(new FlightInfo(schemaOrEmpty(i.dtype(), Arrays.copyOfRange(shape, 1, shape.length)),
                            FlightDescriptor.path("pool", name), List.of(), i.bytes(), i.capacity()));
                }
                default -> { }
            }
        }
        return out;
    }

    private static Schema schemaOrEmpty(DType<?> d, long[] shape) {
        try {
            return new TensorSchema(d, shape).toArrow();
        } catch (IllegalArgumentException e) {
            return new Schema(List.of());
        }
    }

    @Override
    public void close() {
        closed = true;
        reaper.shutdownNow();
        pools.close();
    }
}
