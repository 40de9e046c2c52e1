package dev.sharedarrays.flight.internal;

import dev.sharedarrays.CreateOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.Ticket;

/**
 * What a ticket or descriptor names: {@code array/<name>} or {@code queue/<name>}, as the
 * ticket's bytes, a descriptor's command, or a descriptor path {@code ["array", name]}. Names are
 * validated as segment names are (no '/', no "..", [A-Za-z0-9._-]).
 *
 * @param kind "array" or "queue"
 * @param name the segment name in this host's shm directory
 */
public record FlightPath(String kind, String name) {
    public static final String ARRAY = "array";
    public static final String QUEUE = "queue";

    public FlightPath {
        if (!kind.equals(ARRAY) && !kind.equals(QUEUE)) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("'" + kind + "/" + name
                    + "' names neither array/<name> nor queue/<name>").toRuntimeException();
        }
        try {
            CreateOptions.defaults().name(name);
        } catch (IllegalArgumentException e) {
            throw CallStatus.INVALID_ARGUMENT.withDescription(e.getMessage()).toRuntimeException();
        }
    }

    public static FlightPath parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("'" + text + "' is not array/<name> or queue/<name>").toRuntimeException();
        }
        return new FlightPath(text.substring(0, slash), text.substring(slash + 1));
    }

    public static FlightPath of(Ticket ticket) {
        return parse(new String(ticket.getBytes(), StandardCharsets.UTF_8));
    }

    public static FlightPath of(FlightDescriptor d) {
        if (d.isCommand()) {
            return parse(new String(d.getCommand(), StandardCharsets.UTF_8));
        }
        List<String> p = d.getPath();
        return p.size() == 2 ? new FlightPath(p.get(0), p.get(1)) : parse(String.join("/", p));
    }

    public Ticket ticket() {
        return new Ticket(toString().getBytes(StandardCharsets.UTF_8));
    }

    public FlightDescriptor descriptor() {
        return FlightDescriptor.path(kind, name);
    }

    @Override
    public String toString() {
        return kind + "/" + name;
    }
}
