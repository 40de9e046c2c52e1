package dev.sharedarrays.flight.internal;

import dev.sharedarrays.ArrayQueue;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.grpc.StatusUtils;
import org.apache.arrow.flight.impl.Flight;

/** A local queue's messages into a remote queue (DoPut queue/<name>) through the delivery pump ({@link Delivery}), until the local queue ends. */
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
        Outcome outcome = new Outcome();
        BooleanSupplier stop = () -> outcome.error != null || cancel.isCancelled();
        Put put = new Put(queue, remote, new FlightPath(FlightPath.QUEUE, name), outcome, cancel, stop);
        try {
            Delivery.send(queue, put, Delivery.Pace.FLOW_CONTROL, inFlight, stop, () -> counter[0]++);
            put.call.halfClose();
            while (!outcome.closed.await(Stopped.SLICE.toMillis(), TimeUnit.MILLISECONDS)) {
                if (cancel.isCancelled()) {
                    throw new Stopped();
                }
            }
            if (outcome.error != null) {
                throw outcome.error;
            }
            return counter[0];
        } catch (Stopped e) {
            if (outcome.error == null) {
                put.cancel("the forwarding was cancelled", null);
                throw cancelled(remote, name, counter);
            }
            throw outcome.error;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            put.cancel("the forwarding was interrupted", e);
            throw cancelled(remote, name, counter);
        } catch (RuntimeException e) {
            // the server's call must end too: it would wait for the next message as long as the connection lives
            put.cancel("the forwarding stopped: " + e.getMessage(), e);
            if (cancel.isCancelled() && e instanceof IllegalStateException) {
                throw cancelled(remote, name, counter); // (gRPC's "call was cancelled" from a send racing the cancel)
            }
            throw e;
        }
    }

    /** The DoPut: opened once the local queue's first message is there (or its end), with the stream's descriptor. */
    private static final class Put implements Delivery.Sender {
        private final ArrayQueue queue;
        private final Remote remote;
        private final FlightPath path;
        private final Outcome outcome;
        private final Cancel cancel;
        private final BooleanSupplier stop;
        /** The call, once started; null before. */
        ClientCall<Frame, Flight.PutResult> call;

        Put(ArrayQueue queue, Remote remote, FlightPath path, Outcome outcome, Cancel cancel, BooleanSupplier stop) {
            this.queue = queue;
            this.remote = remote;
            this.path = path;
            this.outcome = outcome;
            this.cancel = cancel;
            this.stop = stop;
        }

        @Override
        public Outgoing open(TensorSchema first) {
            ClientCall<Frame, Flight.PutResult> c = remote.channel.newCall(FrameService.DO_PUT, remote.callOptions());
            c.start(outcome, remote.headers());
            c.request(Integer.MAX_VALUE);
            call = c;
            cancel.onCancel(() -> c.cancel("the forwarding was cancelled", null));
            // a call is ready once connected: sending earlier would leave the message with gRPC, unmarshalled, until then
            Waits.ready(c::isReady, stop);
            return Outgoing.of(c);
        }

        @Override
        public FlightDescriptor descriptor() {
            return path.descriptor();
        }

        @Override
        public RuntimeException mismatch(TensorSchema got, TensorSchema stream) {
            IllegalArgumentException e = new IllegalArgumentException("the local queue " + queue.handle() + " sent a " + got
                    + " array into a stream of " + stream + "; a Flight stream carries one element type and shape (dropped)");
            call.cancel(e.getMessage(), e);
            return e;
        }

        /** Cancels the call, if it started. */
        void cancel(String why, Throwable cause) {
            if (call != null) {
                call.cancel(why, cause);
            }
        }
    }

    private static CancellationException cancelled(Remote remote, String name, long[] counter) {
        return new CancellationException("forwarding to queue/" + name + " at " + remote.uri + " was cancelled after " + counter[0] + " message(s)");
    }
}
