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
 * validated as segment names are (no '/', no "..", [A-Za-z0-9._-]). A ticket may name rows
 * {@code [from, to)} of an array's leading axis: {@code array/<name>?rows=<from>:<to>}.
 *
 * @param kind "array" or "queue"
 * @param name the segment name in this host's shm directory
 * @param from the first row of the leading axis (0 for all)
 * @param to   one past the last row, or -1 for all
 */
public record FlightPath(String kind, String name, long from, long to) {
    public static final String ARRAY = "array";
    public static final String QUEUE = "queue";
    private static final String ROWS = "?rows=";

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
        if (to >= 0 && (!kind.equals(ARRAY) || from < 0 || from >= to)) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("rows " + from + ":" + to + " of " + kind + "/" + name
                    + ": a range is of an array's rows, from < to, both >= 0").toRuntimeException();
        }
    }

    /** All of it. */
    public FlightPath(String kind, String name) {
        this(kind, name, 0, -1);
    }

    /** True if it names a range of rows, not the whole array. */
    public boolean ranged() {
        return to >= 0;
    }

    public static FlightPath parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("'" + text + "' is not array/<name> or queue/<name>").toRuntimeException();
        }
        String rest = text.substring(slash + 1);
        int q = rest.indexOf(ROWS);
        if (q < 0) {
            return new FlightPath(text.substring(0, slash), rest);
        }
        String range = rest.substring(q + ROWS.length());
        int colon = range.indexOf(':');
        try {
            return new FlightPath(text.substring(0, slash), rest.substring(0, q), Long.parseLong(range.substring(0, Math.max(0, colon))),
                    Long.parseLong(range.substring(colon + 1)));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("'" + text + "': rows are ?rows=<from>:<to>").toRuntimeException();
        }
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
        return kind + "/" + name + (ranged() ? ROWS + from + ":" + to : "");
    }
}
