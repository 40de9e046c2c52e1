package dev.sharedarrays.flight;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.DType;
import dev.sharedarrays.flight.internal.BridgeProducer;
import dev.sharedarrays.flight.internal.Cancel;
import dev.sharedarrays.flight.internal.Forwarding;
import dev.sharedarrays.flight.internal.FrameService;
import dev.sharedarrays.flight.internal.Pulling;
import dev.sharedarrays.flight.internal.Remote;
import dev.sharedarrays.flight.internal.TransferFuture;
import dev.sharedarrays.flight.internal.Tuning;
import dev.sharedarrays.flight.internal.TokenAuthenticator;
import dev.sharedarrays.flight.internal.TlsFiles;
import dev.sharedarrays.flight.internal.TokenFile;
import dev.sharedarrays.flight.internal.TransportLog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import io.grpc.ServerServiceDefinition;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth.ServerAuthHandler;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Arrays and queues between hosts over Apache Arrow Flight. A server ({@link #serve}) offers this
 * host's arrays and queues; {@link #forward} feeds a remote queue from a local one, {@link #pull} a
 * local queue from a remote one, so stage code keeps using {@link ArrayQueue} on both hosts.
 *
 * <p>On the wire an array is one row of Arrow's canonical {@code arrow.fixed_shape_tensor}
 * extension type; pyarrow reads a stream with {@code pa.FixedShapeTensorArray.to_numpy_ndarray()}.
 * Delivery is at most once, as on one host: a message taken from a queue when a connection breaks
 * is lost, never sent twice. The JVM needs
 * {@code --add-opens=java.base/java.nio=org.apache.arrow.memory.core,ALL-UNNAMED} (Arrow's memory code).
 */
public final class FlightBridge {
    private FlightBridge() {
    }

    /** A server on 127.0.0.1:8815 with this user's default token ({@link ServeOptions#defaults()}). */
    public static BridgeServer serve() {
        return serve(ServeOptions.defaults());
    }

    /**
     * Starts a server. Every call must carry the bearer token: the one of {@code options}, else
     * this user's default token, read from {@link ServeOptions#defaultTokenFile()} (made there,
     * random, if the file does not exist). Loopback is no trust boundary: any local user can
     * connect to 127.0.0.1, but only this user can read that file.
     *
     * @throws IllegalArgumentException if the address does not resolve, or a TLS file cannot be
     *         read or its key does not belong to its certificate
     * @throws IllegalStateException if the default token file is another user's or others may read it
     * @throws FlightBridgeException if it cannot listen (port in use)
     */
    public static BridgeServer serve(ServeOptions options) {
        try {
            InetAddress.getByName(options.host());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve the listen address " + options.host() + ": " + e.getMessage());
        }
        Path tokenFile = options.token() == null ? ServeOptions.defaultTokenFile() : null;
        String token = options.token() != null ? options.token() : TokenFile.readOrCreate(tokenFile);
        boolean tls = options.certificate() != null;
        if (tls) {
            TlsFiles.check(options.certificate(), options.privateKey());
        }
        Location location = tls ? Location.forGrpcTls(options.host(), options.port()) : Location.forGrpcInsecure(options.host(), options.port());
        TransportLog.quiet();
        BufferAllocator allocator = new RootAllocator();
        BridgeProducer producer = new BridgeProducer(options);
        ExecutorService calls = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sharedarrays-flight-call");
            t.setDaemon(true);
            return t;
        });
        try {
            // DoGet and DoPut on the bridge's own codec; Arrow's service keeps the other calls
            ServerServiceDefinition service = FrameService.replace(
                    FlightGrpcUtils.createFlightService(allocator, producer, ServerAuthHandler.NO_OP, calls).bindService(), producer, calls);
            java.util.function.Consumer<io.grpc.netty.NettyServerBuilder> tune = nb -> {
                Tuning.server(nb);
                nb.addService(service); // replaces Arrow's service of the same name
                nb.callExecutor(FrameService.EXECUTORS);
            };
            FlightServer.Builder b = FlightServer.builder(allocator, location, producer)
                    .transportHint("grpc.builderConsumer", tune)
                    .headerAuthenticator(new TokenAuthenticator(token));
            if (tls) {
                b.useTls(options.certificate().toFile(), options.privateKey().toFile());
            }
            FlightServer server = b.build();
            server.start();
            String scheme = tls ? "grpc+tls" : "grpc+tcp";
            return new BridgeServer(server, producer, allocator, calls, scheme + "://" + options.host() + ":" + server.getPort(), tokenFile);
        } catch (IOException | RuntimeException e) {
            producer.close();
            calls.shutdownNow();
            allocator.close();
            throw new FlightBridgeException("cannot serve on " + options.host() + ":" + options.port() + ": " + e.getMessage(), e);
        }
    }

    /** {@link #forward(ArrayQueue, String, String, ClientOptions)} with {@link ClientOptions#defaults()}. */
    public static long forward(ArrayQueue queue, String location, String name) {
        return forward(queue, location, name, ClientOptions.defaults());
    }

    /**
     * Sends what arrives in {@code queue} to the queue {@code name} of the server at
     * {@code location} ("grpc+tcp://host:8815"), until {@code queue} ends; then the remote queue
     * ends too. Each message is closed (a pool slot goes back) once it is on the wire. Blocks
     * until done. All messages must have one element type and shape.
     *
     * @return the number of messages sent
     * @throws FlightBridgeException if the server refused the stream or the connection broke (the
     *         message in transit then is lost: at most once)
     */
    public static long forward(ArrayQueue queue, String location, String name, ClientOptions options) {
        return forward(queue, location, name, options, Cancel.none());
    }

    private static long forward(ArrayQueue queue, String location, String name, ClientOptions options, Cancel cancel) {
        long[] count = {0};
        try (Remote r = new Remote(location, options.token(), options.trustedCertificate())) {
            return Forwarding.run(queue, r, name, count, cancel);
        } catch (FlightRuntimeException e) {
            throw new FlightBridgeException("forwarding " + queue.handle() + " to queue/" + name + " at " + location + " failed after "
                    + count[0] + " message(s): " + e.status().code() + ": " + e.getMessage(), e);
        }
    }

    /** {@link #pull(String, String, ArrayPool, ArrayQueue, ClientOptions)} with {@link ClientOptions#defaults()}. */
    public static <T extends DType<T>> long pull(String location, String name, ArrayPool<T> pool, ArrayQueue queue) {
        return pull(location, name, pool, queue, ClientOptions.defaults());
    }

    /**
     * Receives the messages of the queue {@code name} of the server at {@code location}, each into
     * a slot of {@code pool} that is then sent into {@code queue}, until the remote queue ends;
     * then {@code queue} ends. Blocks until done; waits while {@code pool} has no free slot or
     * {@code queue} is full (the server then waits too).
     *
     * @return the number of messages received
     * @throws FlightBridgeException if the server refused the stream, the connection broke or the
     *         server went away
     * @throws IllegalArgumentException if the stream's element type or size is not the pool's
     */
    public static <T extends DType<T>> long pull(String location, String name, ArrayPool<T> pool, ArrayQueue queue, ClientOptions options) {
        return pull(location, name, pool, queue, options, Cancel.none());
    }

    private static <T extends DType<T>> long pull(String location, String name, ArrayPool<T> pool, ArrayQueue queue, ClientOptions options,
                                                  Cancel cancel) {
        long[] count = {0, 0};
        try (Remote r = new Remote(location, options.token(), options.trustedCertificate())) {
            return Pulling.run(r, name, pool, queue, count, cancel);
        } catch (FlightRuntimeException e) {
            throw new FlightBridgeException("pulling queue/" + name + " from " + location + " into " + queue.handle() + " failed after "
                    + count[0] + " message(s): " + e.status().code() + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@link #forward(ArrayQueue, String, String, ClientOptions)} on a thread of its own.
     * Cancelling the future stops the forwarding within 0.2 s: the remote queue gets no end (the
     * server sees a cancelled put), the local queue is left as it is.
     */
    public static CompletableFuture<Long> forwardAsync(ArrayQueue queue, String location, String name, ClientOptions options) {
        return async("forward " + name, c -> forward(queue, location, name, options, c));
    }

    /**
     * {@link #pull(String, String, ArrayPool, ArrayQueue, ClientOptions)} on a thread of its own.
     * Cancelling the future cancels the Flight stream at once; the local queue gets no end.
     */
    public static <T extends DType<T>> CompletableFuture<Long> pullAsync(String location, String name, ArrayPool<T> pool, ArrayQueue queue,
                                                                         ClientOptions options) {
        return async("pull " + name, c -> pull(location, name, pool, queue, options, c));
    }

    private static CompletableFuture<Long> async(String what, java.util.function.ToLongFunction<Cancel> work) {
        Cancel cancel = new Cancel();
        TransferFuture f = new TransferFuture(cancel);
        Thread t = new Thread(() -> {
            try {
                f.complete(work.applyAsLong(cancel));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            } finally {
                f.markFinished();
            }
        }, "sharedarrays-flight " + what);
        t.setDaemon(true);
        t.start();
        return f;
    }
}
