package dev.sharedarrays.flight.internal;

import com.google.protobuf.ByteString;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Arrays;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A remote queue's messages (DoGet queue/<name>) into a local pool and queue through the delivery
 * pump ({@link Delivery}), until the remote queue ends.
 */
public final class Pulling {
    private Pulling() {
    }

    public static <T extends DType<T>> long run(Remote remote, String name, ArrayPool<T> pool, ArrayQueue queue, long[] counter, Cancel cancel) {
        FlightPath path = new FlightPath(FlightPath.QUEUE, name);
        ClientCall<Flight.Ticket, Frame> call = remote.channel.newCall(FrameService.DO_GET, remote.callOptions());
        Incoming in = new Incoming(() -> call.request(1), cancel::isCancelled);
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onMessage(Frame f) {
                in.add(f);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                in.closed(status, trailers);
            }
        }, remote.headers());
        cancel.onCancel(() -> call.cancel("the pull was cancelled", null));
        try {
            call.sendMessage(Flight.Ticket.newBuilder().setTicket(ByteString.copyFrom(path.ticket().getBytes())).build());
            call.halfClose();
            call.request(2);
            Schema schema;
            try (Frame first = in.next()) {
                if (first == null || first.isSchema() && first.schema().getFields().isEmpty()) {
                    in.skipToEnd(); // an ended queue that sent nothing
                    queue.end();
                    return 0;
                }
                if (!first.isSchema()) {
                    throw Frame.invalid("the stream did not start with a schema");
                }
                schema = first.schema();
            }
            TensorSchema s = TensorSchema.of(schema);
            long slotElements = 1;
            for (long d : pool.slotShape()) {
                slotElements *= d;
            }
            if (!s.dtype().equals(pool.dtype()) || slotElements != s.elements()) {
                throw new IllegalArgumentException("remote queue " + name + " at " + remote.uri + " streams " + s + " arrays; the pool "
                        + pool.handle() + " holds " + pool.dtype() + " " + Arrays.toString(pool.slotShape()));
            }
            Delivery.receive(in, schema, () -> pool, queue, cancel::isCancelled, () -> counter[0]++);
            queue.end();
            return counter[0];
        } catch (Stopped e) {
            call.cancel("the pull was cancelled", null);
            throw cancelled(remote, name, counter);
        } catch (RuntimeException e) {
            call.cancel("the client stopped: " + e.getMessage(), e);
            if (cancel.isCancelled()) {
                throw cancelled(remote, name, counter); // (gRPC's "call was cancelled" from a send racing the cancel)
            }
            throw e;
        } finally {
            in.drop();
        }
    }

    private static java.util.concurrent.CancellationException cancelled(Remote remote, String name, long[] counter) {
        return new java.util.concurrent.CancellationException("pulling queue/" + name + " from " + remote.uri + " was cancelled after "
                + counter[0] + " message(s)");
    }
}
