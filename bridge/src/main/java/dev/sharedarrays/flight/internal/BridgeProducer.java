package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.DType;
import dev.sharedarrays.Lifetime;
import dev.sharedarrays.SegmentInfo;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The server side: arrays and queues of this host's shm directory as Flight streams.
 * DoGet queue/<name> is a consumer of the queue, DoPut queue/<name> a producer into it through
 * a pool of this server's (one per queue and tensor shape, kept while the server runs).
 */
public final class BridgeProducer extends NoOpFlightProducer implements AutoCloseable {
    private final BufferAllocator allocator;
    private final Map<String, ArrayPool<?>> pools = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public BridgeProducer(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    @Override
    public void getStream(CallContext context, org.apache.arrow.flight.Ticket ticket, ServerStreamListener listener) {
        try {
            FlightPath p = FlightPath.of(ticket);
            if (p.kind().equals(FlightPath.ARRAY)) {
                sendArray(p, listener);
            } else {
                sendQueue(p, context, listener);
            }
        } catch (Waits.Stopped e) {
            listener.error(CallStatus.CANCELLED.withDescription("the client went away or the server is stopping").toRuntimeException());
        } catch (RuntimeException e) {
            listener.error(Errors.toFlight(e));
        }
    }

    private static ArrayHandle handle(FlightPath p) {
        return ArrayHandle.parse("shm://" + p.name());
    }

    private void sendArray(FlightPath p, ServerStreamListener listener) {
        SharedNDArray<?> a = SharedArrays.attach(handle(p));
        boolean handedOver = false;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(new TensorSchema(a.dtype(), a.shape()).toArrow(), allocator)) {
            listener.setUseZeroCopy(true);
            listener.start(root);
            handedOver = true;
            Batches.load(root, allocator, a, a::close);
            listener.putNext();
            listener.completed();
        } finally {
            if (!handedOver) {
                a.close();
            }
        }
    }

    private void sendQueue(FlightPath p, CallContext context, ServerStreamListener listener) {
        java.util.function.BooleanSupplier stop = () -> closed || context.isCancelled() || listener.isCancelled();
        ArrayQueue q = ArrayQueue.attach(handle(p));
        // the queue maps the pools its messages live in: closed once gRPC let go of the last one
        InFlight inFlight = new InFlight(q::close);
        listener.setUseZeroCopy(true);
        VectorSchemaRoot root = null;
        TensorSchema schema = null;
        try {
            while (true) {
                if (root != null) {
                    Waits.ready(listener, stop);
                }
                SharedNDArray<?> m = Waits.receive(q, stop);
                if (m == null) {
                    break;
                }
                TensorSchema s = new TensorSchema(m.dtype(), m.shape());
                if (schema == null) {
                    schema = s;
                    root = VectorSchemaRoot.create(s.toArrow(), allocator);
                    listener.start(root);
                } else if (!s.equals(schema)) {
                    m.close();
                    throw new IllegalArgumentException("queue " + p.name() + " sent a " + s + " array into a stream of " + schema
                            + "; a Flight stream carries one element type and shape (the message was dropped)");
                }
                inFlight.add();
                Batches.load(root, allocator, m, () -> {
                    m.close();
                    inFlight.release();
                });
                listener.putNext();
            }
            if (root == null) {
                root = VectorSchemaRoot.create(new Schema(List.of()), allocator);
                listener.start(root);
            }
            listener.completed();
        } finally {
            if (root != null) {
                root.close();
            }
            inFlight.release();
        }
    }

    @Override
    public Runnable acceptPut(CallContext context, FlightStream stream, StreamListener<PutResult> ack) {
        return () -> {
            try {
                FlightPath p = FlightPath.of(stream.getDescriptor());
                if (p.kind().equals(FlightPath.ARRAY)) {
                    receiveArray(p, stream);
                } else {
                    receiveQueue(p, context, stream);
                }
                ack.onCompleted();
            } catch (Waits.Stopped e) {
                ack.onError(CallStatus.CANCELLED.withDescription("the client went away or the server is stopping").toRuntimeException());
            } catch (RuntimeException e) {
                ack.onError(Errors.toFlight(e));
            }
        };
    }

    /** One batch of n rows: a new array of the tensor's shape (n = 1) or (n, *shape); persistent, as no process holds it. */
    private void receiveArray(FlightPath p, FlightStream stream) {
        TensorSchema s = TensorSchema.of(stream.getSchema());
        CreateOptions.defaults().name(p.name());
        if (!stream.next()) {
            throw new IllegalArgumentException("DoPut " + p + " sent no batch; send one batch with the array");
        }
        VectorSchemaRoot root = stream.getRoot();
        int rows = root.getRowCount();
        if (rows < 1) {
            throw new IllegalArgumentException("DoPut " + p + " sent a batch of 0 rows");
        }
        long[] shape = rows == 1 ? s.shape() : prepend(rows, s.shape());
        SharedNDArray<?> a = SharedArrays.createAny(s.dtype(), shape,
                CreateOptions.defaults().name(p.name()).backend(Backend.SHM).lifetime(Lifetime.PERSISTENT));
        boolean ok = false;
        try {
            MemorySegment dst = a.data();
            for (int r = 0; r < rows; r++) {
                Batches.copyRow(root, r, s, dst.asSlice(r * s.bytes(), s.bytes()));
            }
            if (stream.next()) {
                throw new IllegalArgumentException("DoPut " + p + " sent more than one batch; send the array as one batch");
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

    private static long[] prepend(long n, long[] shape) {
        long[] r = new long[shape.length + 1];
        r[0] = n;
        System.arraycopy(shape, 0, r, 1, shape.length);
        return r;
    }

    private void receiveQueue(FlightPath p, CallContext context, FlightStream stream) {
        java.util.function.BooleanSupplier stop = () -> closed || context.isCancelled();
        try (ArrayQueue q = ArrayQueue.attach(handle(p))) {
            if (stream.getSchema().getFields().isEmpty()) {
                while (stream.next()) {
                    // a producer with nothing to send: only its end counts
                }
                q.end();
                return;
            }
            TensorSchema s = TensorSchema.of(stream.getSchema());
            ArrayPool<?> pool = poolFor(p, s, q.capacity());
            while (stream.next()) {
                VectorSchemaRoot root = stream.getRoot();
                for (int r = 0; r < root.getRowCount(); r++) {
                    SharedNDArray<?> slot = Waits.acquire(pool, stop);
                    boolean sent = false;
                    try {
                        Batches.copyRow(root, r, s, slot.data().asSlice(slot.elementOffset() * slot.itemSize(), s.bytes()));
                        Waits.send(q, slot, stop);
                        sent = true;
                    } finally {
                        if (!sent) {
                            slot.close();
                        }
                    }
                }
            }
            // the remote producer finished its stream: the queue ends, as a local producer's end() would
            q.end();
        }
    }

    /** This server's pool for puts into queue p of tensors s: a few slots, as the queue bounds what waits. */
    private ArrayPool<?> poolFor(FlightPath p, TensorSchema s, int capacity) {
        String key = p.name() + " " + s.dtype() + Arrays.toString(s.shape());
        return pools.computeIfAbsent(key, k -> createPool(s.dtype(), Math.max(2, Math.min(capacity, 8)), s.shape()));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ArrayPool<?> createPool(DType dtype, int slots, long[] shape) {
        return ArrayPool.create(dtype, slots, shape.length == 0 ? new long[] {1} : shape);
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
        for (ArrayPool<?> p : pools.values()) {
            p.close();
        }
        pools.clear();
    }
}
