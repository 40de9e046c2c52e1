package dev.sharedarrays.flight.internal;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.grpc.StatusUtils;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;

/**
 * Flight's DoGet and DoPut on the bridge's own message codec ({@link Frame}), in place of Arrow
 * Java's in the Flight service; the other calls (ListFlights, GetFlightInfo, ...) stay Arrow's.
 * Each call runs on a thread of {@code executor}, since its {@link Handler} may wait as long as the
 * stream lasts. Transport only: what a call serves is the handler's.
 */
public final class FrameService {
    public static final MethodDescriptor<Flight.Ticket, Frame> DO_GET = FlightServiceGrpc.getDoGetMethod()
            .toBuilder(FlightServiceGrpc.getDoGetMethod().getRequestMarshaller(), Frame.MARSHALLER).build();
    public static final MethodDescriptor<Frame, Flight.PutResult> DO_PUT = FlightServiceGrpc.getDoPutMethod()
            .toBuilder(Frame.MARSHALLER, FlightServiceGrpc.getDoPutMethod().getResponseMarshaller()).build();

    private FrameService() {
    }

    /**
     * What serves DoGet and DoPut (the bridge's producer). Each method runs on a call's own thread
     * and may block as long as the stream lasts; {@code gone} turns true once the client went away.
     */
    public interface Handler {
        /** DoGet: the frames the ticket asks for, to {@code out}; returning ends the stream with OK. */
        void serveGet(byte[] ticket, Outgoing out, BooleanSupplier gone);

        /** DoPut: the client's frames, taken from {@code in} to the end; returning answers OK. */
        void servePut(Incoming in, BooleanSupplier gone);

        /** The status a call that threw {@code e} ends with. */
        FlightRuntimeException toFlight(Throwable e);
    }

    /**
     * The executor of a call: DoGet's and DoPut's listeners run on the connection's own thread
     * (they only hand messages to the call's thread: one thread less between socket and slot);
     * null, gRPC's executor, for the others.
     */
    public static final ServerCallExecutorSupplier EXECUTORS = new ServerCallExecutorSupplier() {
        @Override
        public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
            String m = call.getMethodDescriptor().getFullMethodName();
            return m.equals(DO_GET.getFullMethodName()) || m.equals(DO_PUT.getFullMethodName()) ? Runnable::run : null;
        }
    };

    /** Arrow's service definition with DoGet and DoPut served by {@code producer}. */
    public static ServerServiceDefinition replace(ServerServiceDefinition arrow, Handler producer, ExecutorService executor) {
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(arrow.getServiceDescriptor().getName());
        for (ServerMethodDefinition<?, ?> m : arrow.getMethods()) {
            String name = m.getMethodDescriptor().getFullMethodName();
            if (name.equals(DO_GET.getFullMethodName())) {
                b.addMethod(DO_GET, get(producer, executor));
            } else if (name.equals(DO_PUT.getFullMethodName())) {
                b.addMethod(DO_PUT, put(producer, executor));
            } else {
                b.addMethod(m);
            }
        }
        return b.build();
    }

    private static ServerCallHandler<Flight.Ticket, Frame> get(Handler producer, ExecutorService executor) {
        return (call, headers) -> {
            AtomicBoolean gone = new AtomicBoolean();
            call.request(2); // one ticket; a second is an error
            return new ServerCall.Listener<>() {
                private Flight.Ticket ticket;
                private int tickets;

                @Override
                public void onMessage(Flight.Ticket t) {
                    ticket = t;
                    tickets++;
                }

                @Override
                public void onHalfClose() {
                    Flight.Ticket t = ticket;
                    int n = tickets;
                    executor.execute(() -> {
                        Outbound out = new Outbound(call);
                        try {
                            if (n != 1) {
                                throw new IllegalArgumentException("DoGet takes one ticket, the call sent " + n);
                            }
                            producer.serveGet(t.getTicket().toByteArray(), out, gone::get);
                            out.close(Status.OK);
                        } catch (RuntimeException | Error e) {
                            // every call is answered, an Error's too: the client would otherwise wait for ever
                            FlightRuntimeException f = producer.toFlight(e);
                            out.fail(f);
                            if (e instanceof Stalled) {
                                reset(call, f, gone);
                            }
                        }
                    });
                }

                @Override
                public void onCancel() {
                    gone.set(true);
                }

                @Override
                public void onComplete() {
                    gone.set(true);
                }
            };
        };
    }

    private static ServerCallHandler<Frame, Flight.PutResult> put(Handler producer, ExecutorService executor) {
        return (call, headers) -> {
            // reached only past the token check (Arrow's middleware closes a refused call before it)
            ComposingChannels.authenticated(call.getAttributes().get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR),
                    call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
            AtomicBoolean gone = new AtomicBoolean();
            Incoming in = new Incoming(() -> call.request(1), gone::get);
            call.request(2);
            executor.execute(() -> {
                try {
                    producer.servePut(in, gone::get);
                    call.sendHeaders(new Metadata());
                    call.close(Status.OK, new Metadata());
                } catch (RuntimeException | Error e) {
                    // every call is answered, an Error's too: the client would otherwise wait for ever
                    close(call, producer.toFlight(e));
                } finally {
                    in.drop();
                }
            });
            return new ServerCall.Listener<>() {
                @Override
                public void onMessage(Frame f) {
                    in.add(f);
                }

                @Override
                public void onHalfClose() {
                    in.end();
                }

                @Override
                public void onCancel() {
                    gone.set(true);
                    in.cancelled();
                }

                @Override
                public void onComplete() {
                    // gRPC ended the call itself (after this side's close too, when it changes nothing)
                    gone.set(true);
                    in.cancelled();
                }
            };
        };
    }

    /**
     * A stream whose client reads nothing gets its status only behind the messages it does not
     * read, and gRPC keeps those (and the pool slots under them) until the stream goes. Given a
     * second to arrive, the status is followed by a reset (RST_STREAM: the client sees CANCELLED),
     * which drops them.
     */
    private static void reset(ServerCall<?, ?> call, FlightRuntimeException why, AtomicBoolean done) {
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (!done.get() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        }
        if (!done.get()) {
            StreamReset.reset(call, Status.DEADLINE_EXCEEDED.withDescription(why.getMessage()));
        }
    }

    private static void close(ServerCall<?, ?> call, FlightRuntimeException e) {
        try {
            call.close(StatusUtils.toGrpcStatus(e.status()), new Metadata());
        } catch (IllegalStateException already) {
            // closed (the client went away first)
        }
    }

    /** A DoGet's stream of frames to the client. */
    public static final class Outbound implements Outgoing {
        private final ServerCall<Flight.Ticket, Frame> call;
        private boolean headersSent;

        Outbound(ServerCall<Flight.Ticket, Frame> call) {
            this.call = call;
        }

        @Override
        public boolean isReady() {
            return call.isReady();
        }

        @Override
        public void send(Frame f) {
            boolean ok = false;
            try {
                if (!headersSent) {
                    call.sendHeaders(new Metadata());
                    headersSent = true;
                }
                call.sendMessage(f);
                ok = true;
            } finally {
                if (!ok) {
                    f.close();
                }
            }
        }

        void close(Status s) {
            if (!headersSent) {
                call.sendHeaders(new Metadata());
                headersSent = true;
            }
            call.close(s, new Metadata());
        }

        void fail(FlightRuntimeException e) {
            FrameService.close(call, e);
        }
    }
}
