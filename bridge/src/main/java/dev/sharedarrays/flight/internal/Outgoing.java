package dev.sharedarrays.flight.internal;

import io.grpc.ClientCall;

/**
 * The frames one call sends, in order: a server's DoGet ({@link FrameService.Outbound}) or a
 * client's DoPut ({@link #of}). One thread sends. A frame sent is gRPC's from then on (it may
 * marshal it later); it is closed here only if sending failed.
 */
public interface Outgoing {
    /** True while gRPC takes another frame without holding it back (its flow-control window, {@link Tuning}'s threshold). */
    boolean isReady();

    /** Sends f: gRPC's from here on; closed here only if sending failed. */
    void send(Frame f);

    /** A client call's frames (its DoPut). */
    static Outgoing of(ClientCall<Frame, ?> call) {
        return new Outgoing() {
            @Override
            public boolean isReady() {
                return call.isReady();
            }

            @Override
            public void send(Frame f) {
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
        };
    }
}
