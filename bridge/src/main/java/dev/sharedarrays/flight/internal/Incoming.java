package dev.sharedarrays.flight.internal;

import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.grpc.StatusUtils;

/**
 * The frames of one call as gRPC delivers them (on its threads), taken by the call's own thread
 * (the delivery pump copies their rows on). One frame more than the taker holds is asked for, so
 * the next one is parsed while this one is copied; the rest waits in gRPC's flow-control window.
 */
final class Incoming {
    private static final Object END = new Object();
    private static final Object CANCELLED = new Object();

    private final LinkedBlockingQueue<Object> frames = new LinkedBlockingQueue<>();
    private final Runnable requestOne;
    private final BooleanSupplier stop;
    private volatile boolean dropped;

    /** A failed call, as the taker sees it. */
    private record Failed(RuntimeException error) {
    }

    Incoming(Runnable requestOne, BooleanSupplier stop) {
        this.requestOne = requestOne;
        this.stop = stop;
    }

    void add(Frame f) {
        frames.add(f);
        if (dropped) {
            drop();
        }
    }

    /** The other end finished its stream. */
    void end() {
        frames.add(END);
    }

    /** The call was cancelled (a server's view of a client that went away). */
    void cancelled() {
        frames.add(CANCELLED);
    }

    /** The call ended with this status (a client's view); OK is the end of the stream. */
    void closed(Status status, Metadata trailers) {
        frames.add(status.isOk() ? END : new Failed(StatusUtils.fromGrpcRuntimeException(status.asRuntimeException(trailers))));
    }

    /**
     * The next frame (the caller closes it), or null at the end of the stream.
     *
     * @throws Stopped if {@code stop} said so or the call was cancelled
     * @throws org.apache.arrow.flight.FlightRuntimeException if the call failed
     */
    Frame next() {
        while (true) {
            if (stop.getAsBoolean()) {
                throw new Stopped();
            }
            Object o;
            try {
                o = frames.poll(Stopped.SLICE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Stopped();
            }
            if (o == null) {
                continue;
            }
            if (o == END) {
                frames.add(END);
                return null;
            }
            if (o == CANCELLED) {
                frames.add(CANCELLED);
                throw new Stopped();
            }
            if (o instanceof Failed f) {
                frames.add(f);
                throw f.error();
            }
            Frame f = (Frame) o;
            if (f.failure() != null) {
                frames.add(new Failed(f.failure()));
                throw f.failure();
            }
            requestOne.run();
            return f;
        }
    }

    /** The next record batch, or null at the end; other messages (metadata only) are skipped. */
    Frame nextBatch() {
        while (true) {
            Frame f = next();
            if (f == null || f.isBatch()) {
                return f;
            }
            f.close();
        }
    }

    /** Takes and closes the frames up to the end of the stream (a stream whose end alone counts). */
    void skipToEnd() {
        Frame f;
        while ((f = next()) != null) {
            f.close();
        }
    }

    /** Lets go of the frames not taken, now and when they come later. */
    void drop() {
        dropped = true;
        java.util.List<Object> rest = new java.util.ArrayList<>();
        frames.drainTo(rest);
        for (Object o : rest) {
            if (o instanceof Frame f) {
                f.close();
            } else {
                frames.add(o);
            }
        }
    }
}
