package dev.sharedarrays.flight;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link FlightBridge#serve(ServeOptions)} listens: address and port (default
 * 127.0.0.1:8815), bearer token, TLS, and what remote clients may take of this host. Immutable;
 * each method returns a changed copy. Every server requires a bearer token: the one given here,
 * else this user's default token ({@link #defaultTokenFile()}), which no other local user can read.
 *
 * <p>The limits keep remote clients from taking what local processes need: streams per array or
 * queue (each shares one attachment, so the segment's attach slots stay for local processes), the
 * messages a remote reader may hold that are not on the wire yet (pool slots a slow reader keeps
 * from local consumers), how long a stream may make no progress, and the pools the server makes
 * for remote producers. Past a limit a call is refused with RESOURCE_EXHAUSTED, or a stalled stream
 * is ended with DEADLINE_EXCEEDED, each naming the option.
 */
public final class ServeOptions {
    public static final int DEFAULT_PORT = 8815;
    /** {@link #maxStreamsPerSegment(int)}'s default. */
    public static final int DEFAULT_MAX_STREAMS_PER_SEGMENT = 16;
    /** {@link #maxInFlightPerStream(int)}'s default. */
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_STREAM = 4;
    /** {@link #stallTimeout(Duration)}'s default. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(10);
    /** {@link #maxPools(int)}'s default. */
    public static final int DEFAULT_MAX_POOLS = 16;
    /** {@link #maxPoolBytes(long)}'s default: 1 GiB. */
    public static final long DEFAULT_MAX_POOL_BYTES = 1L << 30;

    private final String host;
    private final int port;
    private final String token;
    private final Path cert;
    private final Path key;
    private final int maxStreamsPerSegment;
    private final int maxInFlightPerStream;
    private final Duration stallTimeout;
    private final int maxPools;
    private final long maxPoolBytes;

    private ServeOptions(String host, int port, String token, Path cert, Path key, int maxStreamsPerSegment, int maxInFlightPerStream,
                         Duration stallTimeout, int maxPools, long maxPoolBytes) {
        this.host = host;
        this.port = port;
        this.token = token;
        this.cert = cert;
        this.key = key;
        this.maxStreamsPerSegment = maxStreamsPerSegment;
        this.maxInFlightPerStream = maxInFlightPerStream;
        this.stallTimeout = stallTimeout;
        this.maxPools = maxPools;
        this.maxPoolBytes = maxPoolBytes;
    }

    /** 127.0.0.1:8815, this user's default token, no TLS, the default limits. */
    public static ServeOptions defaults() {
        return new ServeOptions("127.0.0.1", DEFAULT_PORT, null, null, null, DEFAULT_MAX_STREAMS_PER_SEGMENT,
                DEFAULT_MAX_IN_FLIGHT_PER_STREAM, DEFAULT_STALL_TIMEOUT, DEFAULT_MAX_POOLS, DEFAULT_MAX_POOL_BYTES);
    }

    /** Listen on this address (a name, an IP; 0.0.0.0 for all) and port (0 picks a free one). */
    public ServeOptions listen(String host, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        return new ServeOptions(Objects.requireNonNull(host, "host"), port, token, cert, key, maxStreamsPerSegment, maxInFlightPerStream,
                stallTimeout, maxPools, maxPoolBytes);
    }

    /** Every call must carry {@code authorization: Bearer <token>}. */
    public ServeOptions token(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("the token is empty");
        }
        return new ServeOptions(host, port, token.strip(), cert, key, maxStreamsPerSegment, maxInFlightPerStream, stallTimeout, maxPools,
                maxPoolBytes);
    }

    /** TLS with this certificate chain and private key (PEM files; the key unencrypted PKCS#8). */
    public ServeOptions tls(Path certificate, Path privateKey) {
        return new ServeOptions(host, port, token, Objects.requireNonNull(certificate), Objects.requireNonNull(privateKey),
                maxStreamsPerSegment, maxInFlightPerStream, stallTimeout, maxPools, maxPoolBytes);
    }

    /**
     * Remote streams (DoGet and DoPut) at once on one array or queue (default 16). They share one
     * attachment of it, so its attach slots stay for local processes.
     */
    public ServeOptions maxStreamsPerSegment(int n) {
        return new ServeOptions(host, port, token, cert, key, positive(n, "maxStreamsPerSegment"), maxInFlightPerStream, stallTimeout,
                maxPools, maxPoolBytes);
    }

    /**
     * Messages a DoGet of a queue may have taken that are not on the wire yet (default 4): the
     * pool slots a remote reader holds at most, whatever it reads.
     */
    public ServeOptions maxInFlightPerStream(int n) {
        return new ServeOptions(host, port, token, cert, key, maxStreamsPerSegment, positive(n, "maxInFlightPerStream"), stallTimeout,
                maxPools, maxPoolBytes);
    }

    /**
     * How long a DoGet's client may read nothing while the server has messages for it (default
     * 10 s): then the stream is ended with DEADLINE_EXCEEDED and the pool slots it held go back.
     * Waits for local processes (an empty queue) are not stalls, nor is a DoPut whose client sends
     * slowly (it holds no slot while it waits).
     */
    public ServeOptions stallTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("stallTimeout must be positive, but was " + timeout);
        }
        return new ServeOptions(host, port, token, cert, key, maxStreamsPerSegment, maxInFlightPerStream, timeout, maxPools, maxPoolBytes);
    }

    /** Pools the server makes for remote producers (one per queue, element type and shape), at most (default 16). */
    public ServeOptions maxPools(int n) {
        return new ServeOptions(host, port, token, cert, key, maxStreamsPerSegment, maxInFlightPerStream, stallTimeout, positive(n, "maxPools"),
                maxPoolBytes);
    }

    /** Bytes those pools may hold together, at most (default 1 GiB). */
    public ServeOptions maxPoolBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("maxPoolBytes must be positive, but was " + bytes);
        }
        return new ServeOptions(host, port, token, cert, key, maxStreamsPerSegment, maxInFlightPerStream, stallTimeout, maxPools, bytes);
    }

    private static int positive(int n, String what) {
        if (n < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, but was " + n);
        }
        return n;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The token given, or null: then the server uses the one in {@link #defaultTokenFile()}. */
    public String token() {
        return token;
    }

    /**
     * Where this user's default token is: {@code SHARED_ARRAYS_FLIGHT_TOKEN_FILE} if set, else
     * {@code $XDG_RUNTIME_DIR/sharedarrays/flight-token}, else
     * {@code ~/.local/share/sharedarrays/runtime/flight-token}. A server that is given no token
     * makes it there (32 random bytes in hex; file mode 0600, directory 0700) if it does not
     * exist; a client that is given none sends it to servers on loopback addresses. A file another
     * user owns or may read is refused.
     */
    public static Path defaultTokenFile() {
        return dev.sharedarrays.flight.internal.TokenFile.defaultPath();
    }

    /** The TLS certificate, or null without TLS. */
    public Path certificate() {
        return cert;
    }

    /** The TLS key, or null without TLS. */
    public Path privateKey() {
        return key;
    }

    public int maxStreamsPerSegment() {
        return maxStreamsPerSegment;
    }

    public int maxInFlightPerStream() {
        return maxInFlightPerStream;
    }

    public Duration stallTimeout() {
        return stallTimeout;
    }

    public int maxPools() {
        return maxPools;
    }

    public long maxPoolBytes() {
        return maxPoolBytes;
    }
}
