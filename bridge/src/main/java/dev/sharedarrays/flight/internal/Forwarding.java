package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.SharedNDArray;
import java.util.List;
import java.util.function.BooleanSupplier;
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

    /** Returns how many messages were sent; {@code counter[0]} follows along for error messages. */
    public static long run(ArrayQueue queue, Remote remote, String name, long[] counter) {
        FlightPath path = new FlightPath(FlightPath.QUEUE, name);
        Outcome outcome = new Outcome();
        BooleanSupplier stop = () -> outcome.error != null;
        SharedNDArray<?> first = Waits.receive(queue, stop);
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
                Batches.load(root, remote.allocator, m, m::close);
                put.putNext();
                counter[0]++;
                m = Waits.receive(queue, stop);
            }
            put.completed();
            put.getResult();
            if (outcome.error != null) {
                throw new Waits.Stopped();
            }
            return counter[0];
        } catch (Waits.Stopped e) {
            Throwable t = outcome.error;
            throw t instanceof RuntimeException r ? r : new IllegalStateException(String.valueOf(t), t);
        }
    }
}
