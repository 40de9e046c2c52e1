package dev.sharedarrays.flight;

import dev.sharedarrays.SharedArrayException;

/**
 * A bridge call failed at the other host or on the way: refused (wrong token, bad name), the
 * connection broke, or the remote server or client went away. The message names the remote
 * location, the stream, how many messages had passed, and Flight's status.
 */
public class FlightBridgeException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public FlightBridgeException(String message, Throwable cause) {
        super(message, cause);
    }
}
