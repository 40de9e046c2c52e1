package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.SharedNDArray;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** A local queue's messages into a remote queue (DoPut queue/<name>), until the local queue ends. */
public final class Forwarding {
    private Forwarding() {
    }

    /** Collects the put's outcome: an error from the server or the connection ends the forwarding. */
    private static final class Outcome implements FlightClient.PutListener {
        volatile Throwable error;

        @Override
        public void onNext(PutResult val) {
            val.close();
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
        }

        @Override
        public void getResult() {
        }

        @Override
        public boolean isCancelled() {
            return error != null;
        }
    }

    /** How long forwarding waits, when it ends, for gRPC to let go of the last messages' shared memory. */
    private static final long RELEASE_MILLIS = 10_000;

    /**
     * Returns how many messages were sent; {@code counter[0]} follows along for error messages.
     * Returns or throws only once gRPC holds no message's memory any more: the caller may then
     * close the queue (and so unmap the pools the messages live in).
     */
    public static long run(ArrayQueue queue, Remote remote, String name, long[] counter, Cancel cancel) {
        InFlight inFlight = new InFlight(() -> { });
        try {
            return run(queue, remote, name, counter, inFlight, cancel);
        } finally {
            try {
                inFlight.endAndAwait(RELEASE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long run(ArrayQueue queue, Remote remote, String name, long[] counter, InFlight inFlight, Cancel cancel) {
        FlightPath path = new FlightPath(FlightPath.QUEUE, name);
        Outcome outcome = new Outcome();
        BooleanSupplier stop = () -> outcome.error != null || cancel.isCancelled();
        SharedNDArray<?> first;
        try {
            first = Waits.receive(queue, stop);
        } catch (Waits.Stopped e) {
            throw cancelled(remote, name, counter);
        }
        TensorSchema schema = first == null ? null : new TensorSchema(first.dtype(), first.shape());
        Schema arrow = schema == null ? new Schema(List.of()) : schema.toArrow();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, remote.allocator)) {
            FlightClient.ClientStreamListener put;
            try {
                put = remote.client.startPut(path.descriptor(), root, outcome, remote.options);
            } catch (RuntimeException e) {
                if (first != null) {
                    first.close();
                }
                throw e;
            }
            put.setUseZeroCopy(true);
            SharedNDArray<?> m = first;
            try {
                while (m != null) {
                    TensorSchema s = new TensorSchema(m.dtype(), m.shape());
                    if (!s.equals(schema)) {
                        m.close();
                        IllegalArgumentException e = new IllegalArgumentException("the local queue " + queue.handle() + " sent a " + s
                                + " array into a stream of " + schema + "; a Flight stream carries one element type and shape (dropped)");
                        put.error(e);
                        throw e;
                    }
                    try {
                        Waits.ready(put, stop);
                    } catch (Waits.Stopped e) {
                        m.close();
                        throw e;
                    }
                    inFlight.add();
                    SharedNDArray<?> sent = m;
                    Batches.load(root, remote.allocator, m, () -> {
                        sent.close();
                        inFlight.release();
                    });
                    put.putNext();
                    counter[0]++;
                    m = Waits.receive(queue, stop);
                }
            } catch (Waits.Stopped e) {
                if (outcome.error == null) {
                    put.error(CallStatus.CANCELLED.withDescription("the forwarding was cancelled").toRuntimeException());
                }
                throw e;
            }
            put.completed();
            put.getResult();
            if (outcome.error != null) {
                throw new Waits.Stopped();
            }
            return counter[0];
        } catch (Waits.Stopped e) {
            if (outcome.error == null && cancel.isCancelled()) {
                // (the put was ended with an error by this thread: gRPC's calls are not for two threads at once)
                throw cancelled(remote, name, counter);
            }
            Throwable t = outcome.error;
            throw t instanceof RuntimeException r ? r : new IllegalStateException(String.valueOf(t), t);
        }
    }

    private static CancellationException cancelled(Remote remote, String name, long[] counter) {
        return new CancellationException("forwarding to queue/" + name + " at " + remote.uri + " was cancelled after " + counter[0] + " message(s)");
    }
}
