package dev.sharedarrays.flight.internal;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * gRPC logs every server connection that fails (a peer that speaks no HTTP/2, a reset, a
 * dropped TLS handshake) at INFO with its stack trace, about 2.5 KB each, through
 * java.util.logging: a peer that has no token can write that much per connection. One line at
 * FINE (debug) instead; other records pass unchanged.
 */
public final class TransportLog {
    /** Held: java.util.logging keeps loggers weakly, and a collected logger loses its filter. */
    private static final Logger SERVER_TRANSPORT = Logger.getLogger("io.grpc.netty.NettyServerTransport.connections");

    private TransportLog() {
    }

    /** Installs the filter (once per JVM: setting it again changes nothing). */
    public static void quiet() {
        SERVER_TRANSPORT.setFilter(r -> {
            if (r.getThrown() == null || r.getLevel().intValue() > Level.INFO.intValue()) {
                return true;
            }
            if (SERVER_TRANSPORT.isLoggable(Level.FINE)) {
                SERVER_TRANSPORT.log(Level.FINE, r.getMessage() + ": " + r.getThrown()); // no stack: passes this filter
            }
            return false;
        });
    }
}
