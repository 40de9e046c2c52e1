package dev.sharedarrays.flight;

import dev.sharedarrays.flight.internal.BridgeProducer;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.memory.BufferAllocator;

/** A running bridge server ({@link FlightBridge#serve}); {@link #close()} stops it. */
public final class BridgeServer implements AutoCloseable {
    private final FlightServer server;
    private final BridgeProducer producer;
    private final BufferAllocator allocator;
    private final ExecutorService calls;
    private final String location;
    private final Path tokenFile;

    BridgeServer(FlightServer server, BridgeProducer producer, BufferAllocator allocator, ExecutorService calls, String location,
                 Path tokenFile) {
        this.server = server;
        this.producer = producer;
        this.allocator = allocator;
        this.calls = calls;
        this.location = location;
        this.tokenFile = tokenFile;
    }

    /**
     * The file that holds the token this server requires, if it is this user's default token
     * (clients of this user on this host read it from there); null if the options gave the token.
     */
    public Path tokenFile() {
        return tokenFile;
    }

    /** The port it listens on (the one picked, if asked for port 0). */
    public int port() {
        return server.getPort();
    }

    /** "grpc+tcp://host:port" (grpc+tls with TLS), for clients on this host. */
    public String location() {
        return location;
    }

    /** Blocks until the server stops (close from another thread, or the JVM exits). */
    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    /** Stops accepting calls, ends the streams in progress (their clients get an error), frees the server's pools. */
    @Override
    public void close() {
        producer.close(); // streams in progress see it within one wait slice and end
        server.shutdown();
        try {
            if (!server.awaitTermination(3, TimeUnit.SECONDS)) {
                server.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // closing a server that would not stop: nothing left to do
        }
        calls.shutdown();
        try {
            allocator.close();
        } catch (IllegalStateException e) {
            // buffers still held by gRPC's last writes; they are freed with the JVM
        }
    }
}
