package dev.sharedarrays.flight.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** A connection to a bridge server: its channel, an Arrow client on it, and the headers that carry the token. */
public final class Remote implements AutoCloseable {
    public final String uri;
    public final BufferAllocator allocator;
    public final FlightClient client;
    /** The connection, for the bridge's own DoGet and DoPut ({@link FrameService}). */
    public final ManagedChannel channel;
    private final String token;

    public Remote(String uri, String token, Path trusted) {
        this.uri = uri;
        Location location;
        try {
            location = new Location(new URI(uri));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + uri + "' is not a Flight location; write grpc+tcp://host:port or grpc+tls://host:port");
        }
        String scheme = location.getUri().getScheme();
        if (!"grpc+tcp".equals(scheme) && !"grpc+tls".equals(scheme) && !"grpc".equals(scheme)) {
            throw new IllegalArgumentException("'" + uri + "' is not a Flight location; write grpc+tcp://host:port or grpc+tls://host:port");
        }
        this.allocator = new RootAllocator();
        URI u = location.getUri();
        NettyChannelBuilder b = Tuning.client(NettyChannelBuilder.forAddress(u.getHost(), u.getPort()));
        if ("grpc+tls".equals(scheme)) {
            try {
                var ssl = GrpcSslContexts.forClient();
                if (trusted != null) {
                    try (InputStream in = Files.newInputStream(trusted)) {
                        ssl.trustManager(in);
                    }
                }
                b.useTransportSecurity().sslContext(ssl.build());
            } catch (IOException e) {
                allocator.close();
                throw new IllegalArgumentException("cannot read the trusted certificate " + trusted + ": " + e.getMessage(), e);
            }
        } else {
            b.usePlaintext();
        }
        this.channel = b.build();
        this.client = FlightGrpcUtils.createFlightClient(allocator, channel);
        this.token = token != null ? token : loopbackDefault(u.getHost());
    }

    /** This user's default token for a server on a loopback address (one of this user's, on this host), else null. */
    private static String loopbackDefault(String host) {
        try {
            if (host == null || !java.net.InetAddress.getByName(host).isLoopbackAddress()) {
                return null; // never sent to another host: it is this host's secret
            }
        } catch (java.net.UnknownHostException e) {
            return null;
        }
        return TokenFile.readIfPresent(TokenFile.defaultPath());
    }

    /** The token this connection sends, or null. */
    public String token() {
        return token;
    }

    /** Options of a call through Arrow's own client ({@link #client}): the bearer token, if any. */
    public org.apache.arrow.flight.CallOption[] arrowOptions() {
        if (token == null) {
            return new org.apache.arrow.flight.CallOption[0];
        }
        org.apache.arrow.flight.FlightCallHeaders h = new org.apache.arrow.flight.FlightCallHeaders();
        h.insert("authorization", "Bearer " + token);
        return new org.apache.arrow.flight.CallOption[] {new org.apache.arrow.flight.HeaderCallOption(h)};
    }

    /**
     * Options of a call of the bridge's own: the on-ready threshold of {@link Tuning}, and its
     * listener run on the connection's own thread (it only queues a message for the thread that
     * copies it: one thread less between the socket and the pool slot).
     */
    public CallOptions callOptions() {
        return CallOptions.DEFAULT.withOnReadyThreshold(Tuning.ON_READY_THRESHOLD).withExecutor(Runnable::run);
    }

    /** Headers of a call of the bridge's own: the bearer token, if any. */
    public Metadata headers() {
        Metadata h = new Metadata();
        if (token != null) {
            h.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        }
        return h;
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            allocator.close();
        } catch (IllegalStateException e) {
            // buffers gRPC still holds after a broken call; freed with the JVM
        }
    }
}
