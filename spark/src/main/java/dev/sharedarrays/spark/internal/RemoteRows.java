package dev.sharedarrays.spark.internal;

import dev.sharedarrays.flight.FlightBridgeException;
import dev.sharedarrays.flight.internal.Remote;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Rows of an array on another host, through that host's Flight bridge: one DoGet of
 * {@code array/<name>?rows=<from>:<to>}, whose elements stay in the Arrow buffer they arrived in
 * (the only copy, from the socket); {@link #memory} reads them until {@link #close}.
 */
final class RemoteRows implements AutoCloseable {
    private final Remote remote;
    private final FlightStream stream;
    private final MemorySegment memory;

    RemoteRows(String location, String token, String name, long from, long to, long rowBytes) {
        Remote r = new Remote(location, token, null);
        FlightStream s = null;
        try {
            s = r.client.getStream(new Ticket(("array/" + name + "?rows=" + from + ":" + to).getBytes(StandardCharsets.UTF_8)),
                    r.arrowOptions());
            if (!s.next()) {
                throw new FlightBridgeException("the bridge at " + location + " sent no batch for rows " + from + ":" + to + " of " + name, null);
            }
            FieldVector column = s.getRoot().getVector(0);
            FieldVector items = ((FixedSizeListVector) column).getDataVector();
            long bytes = (to - from) * rowBytes;
            if (items.getDataBuffer().capacity() < bytes) {
                throw new FlightBridgeException("the bridge at " + location + " sent " + items.getDataBuffer().capacity() + " bytes for rows "
                        + from + ":" + to + " of " + name + ", " + bytes + " expected", null);
            }
            this.memory = MemorySegment.ofAddress(items.getDataBuffer().memoryAddress()).reinterpret(bytes);
        } catch (FlightRuntimeException e) {
            close(s, r);
            throw new FlightBridgeException("reading rows " + from + ":" + to + " of " + name + " from " + location + " failed: "
                    + e.status().code() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(s, r);
            throw e;
        }
        this.remote = r;
        this.stream = s;
    }

    /** The rows, row-major, the first at 0. */
    MemorySegment memory() {
        return memory;
    }

    private static void close(FlightStream s, Remote r) {
        try {
            if (s != null) {
                s.close();
            }
        } catch (Exception e) {
            // the stream failed already
        } finally {
            r.close();
        }
    }

    @Override
    public void close() {
        close(stream, remote);
    }
}
