package dev.sharedarrays.flight;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How {@link FlightBridge#serve(ServeOptions)} listens: address and port (default
 * 127.0.0.1:8815), bearer token, TLS. Immutable; each method returns a changed copy.
 * A server that listens beyond loopback must have a token.
 */
public final class ServeOptions {
    public static final int DEFAULT_PORT = 8815;
    private final String host;
    private final int port;
    private final String token;
    private final Path cert;
    private final Path key;

    private ServeOptions(String host, int port, String token, Path cert, Path key) {
        this.host = host;
        this.port = port;
        this.token = token;
        this.cert = cert;
        this.key = key;
    }

    /** 127.0.0.1:8815, no token, no TLS. */
    public static ServeOptions defaults() {
        return new ServeOptions("127.0.0.1", DEFAULT_PORT, null, null, null);
    }

    /** Listen on this address (a name, an IP; 0.0.0.0 for all) and port (0 picks a free one). */
    public ServeOptions listen(String host, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        return new ServeOptions(Objects.requireNonNull(host, "host"), port, token, cert, key);
    }

    /** Every call must carry {@code authorization: Bearer <token>}. */
    public ServeOptions token(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("the token is empty");
        }
        return new ServeOptions(host, port, token.strip(), cert, key);
    }

    /** TLS with this certificate chain and private key (PEM files). */
    public ServeOptions tls(Path certificate, Path privateKey) {
        return new ServeOptions(host, port, token, Objects.requireNonNull(certificate), Objects.requireNonNull(privateKey));
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The token, or null if none. */
    public String token() {
        return token;
    }

    /** The TLS certificate, or null without TLS. */
    public Path certificate() {
        return cert;
    }

    /** The TLS key, or null without TLS. */
    public Path privateKey() {
        return key;
    }
}
