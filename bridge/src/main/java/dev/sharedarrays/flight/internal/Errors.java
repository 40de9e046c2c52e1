package dev.sharedarrays.flight.internal;

import dev.sharedarrays.InsufficientSpaceException;
import dev.sharedarrays.QueueAbandonedException;
import dev.sharedarrays.SegmentExistsException;
import dev.sharedarrays.SegmentNotFoundException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;

/** Our exceptions as Flight statuses, so the remote end sees the message and a fitting code. */
final class Errors {
    private Errors() {
    }

    static FlightRuntimeException toFlight(Throwable e) {
        if (e instanceof FlightRuntimeException f) {
            return f;
        }
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        CallStatus s = switch (e) {
            case SegmentNotFoundException x -> CallStatus.NOT_FOUND;
            case SegmentExistsException x -> CallStatus.ALREADY_EXISTS;
            case InsufficientSpaceException x -> CallStatus.RESOURCE_EXHAUSTED;
            case IllegalArgumentException x -> CallStatus.INVALID_ARGUMENT;
            case QueueAbandonedException x -> CallStatus.UNAVAILABLE;
            case IllegalStateException x -> CallStatus.UNAVAILABLE;
            default -> CallStatus.INTERNAL;
        };
        return s.withDescription(m).withCause(e).toRuntimeException();
    }
}
