package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.SharedNDArray;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.grpc.StatusUtils;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.vector.types.pojo.Schema;

/** A local queue's messages into a remote queue (DoPut queue/<name>), until the local queue ends. */
public final class Forwarding {
    private Forwarding() {
    }

    /** The put's outcome: an error from the server or the connection ends the forwarding. */
    private static final class Outcome extends ClientCall.Listener<Flight.PutResult> {
        volatile RuntimeException error;
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public void onClose(Status status, Metadata trailers) {
            if (!status.isOk()) {
                error = StatusUtils.fromGrpcRuntimeException(status.asRuntimeException(trailers));
            }
            closed.countDown();
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
        TensorSchema schema;
        Schema arrow;
        try {
            schema = first == null ? null : new TensorSchema(first.dtype(), first.shape());
            arrow = schema == null ? new Schema(List.of()) : schema.toArrow();
        } catch (RuntimeException e) {
            first.close();
            throw e;
        }
        SharedNDArray<?> m = first;
        ClientCall<Frame, Flight.PutResult> call;
        try {
            call = remote.channel.newCall(FrameService.DO_PUT, remote.callOptions());
            call.start(outcome, remote.headers());
            call.request(Integer.MAX_VALUE);
        } catch (RuntimeException e) {
            if (m != null) {
                m.close();
            }
            throw e;
        }
        cancel.onCancel(() -> call.cancel("the forwarding was cancelled", null));
        try {
            // a call is ready once connected: sending earlier would leave the message with gRPC, unmarshalled, until then
            Waits.ready(call::isReady, stop);
            send(call, Frames.schema(arrow, path.descriptor()));
            ByteBuffer header = schema == null ? null : Frames.batchHeader(schema);
            while (m != null) {
                TensorSchema s = new TensorSchema(m.dtype(), m.shape());
                if (!s.equals(schema)) {
                    IllegalArgumentException e = new IllegalArgumentException("the local queue " + queue.handle() + " sent a " + s
                            + " array into a stream of " + schema + "; a Flight stream carries one element type and shape (dropped)");
                    call.cancel(e.getMessage(), e);
                    throw e;
                }
                Waits.ready(call::isReady, stop);
                inFlight.add();
                SharedNDArray<?> sent = m;
                m = null;
                send(call, Frames.array(header, sent, () -> {
                    sent.close();
                    inFlight.release();
                }));
                counter[0]++;
                m = Waits.receive(queue, stop);
            }
            call.halfClose();
            while (!outcome.closed.await(Waits.SLICE.toMillis(), TimeUnit.MILLISECONDS)) {
                if (cancel.isCancelled()) {
                    throw new Waits.Stopped();
                }
            }
            if (outcome.error != null) {
                throw outcome.error;
            }
            return counter[0];
        } catch (Waits.Stopped e) {
            if (outcome.error == null) {
                call.cancel("the forwarding was cancelled", null);
                throw cancelled(remote, name, counter);
            }
            throw outcome.error;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.cancel("the forwarding was interrupted", e);
            throw cancelled(remote, name, counter);
        } catch (RuntimeException e) {
            // the server's call must end too: it would wait for the next message as long as the connection lives
            call.cancel("the forwarding stopped: " + e.getMessage(), e);
            if (cancel.isCancelled() && e instanceof IllegalStateException) {
                throw cancelled(remote, name, counter); // (gRPC's "call was cancelled" from a send racing the cancel)
            }
            throw e;
        } finally {
            if (m != null) {
                m.close();
            }
        }
    }

    /** Sends f: gRPC's from here on (it may marshal it later); closed here only if sending failed. */
    private static void send(ClientCall<Frame, ?> call, Frame f) {
        boolean ok = false;
        try {
            call.sendMessage(f);
            ok = true;
        } finally {
            if (!ok) {
                f.close();
            }
        }
    }

    private static CancellationException cancelled(Remote remote, String name, long[] counter) {
        return new CancellationException("forwarding to queue/" + name + " at " + remote.uri + " was cancelled after " + counter[0] + " message(s)");
    }
}
