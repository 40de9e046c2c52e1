package dev.sharedarrays.flight.internal;

/**
 * Thrown when the other end of a stream took nothing for longer than the stall timeout. The
 * server's transport ({@link FrameService}) then resets the stream, so that gRPC lets go of the
 * messages it still holds for it.
 */
public final class Stalled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stalled(String message) {
        super(message, null, false, false);
    }
}
