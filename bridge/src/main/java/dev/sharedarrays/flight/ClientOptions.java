package dev.sharedarrays.flight;

import java.nio.file.Path;

/**
 * How {@link FlightBridge#forward} and {@link FlightBridge#pull} call a server: the bearer token
 * (by default the environment variable {@code SHARED_ARRAYS_FLIGHT_TOKEN}, if set; without one, a
 * call to a loopback address sends this user's default token, the one a server of this user on
 * this host requires: {@link ServeOptions#defaultTokenFile()}) and, for {@code grpc+tls://}
 * locations, the certificate to trust (default: the JDK's trust store).
 */
public final class ClientOptions {
    /** The environment variable {@link #defaults()} takes the token from. */
    public static final String TOKEN_ENV = "SHARED_ARRAYS_FLIGHT_TOKEN";
    private final String token;
    private final Path trusted;

    private ClientOptions(String token, Path trusted) {
        this.token = token;
        this.trusted = trusted;
    }

    /** The token of {@code SHARED_ARRAYS_FLIGHT_TOKEN} if set, else none (the default token on loopback); the JDK's trusted certificates. */
    public static ClientOptions defaults() {
        String env = System.getenv(TOKEN_ENV);
        return new ClientOptions(env == null || env.isBlank() ? null : env.strip(), null);
    }

    public ClientOptions token(String token) {
        return new ClientOptions(token == null ? null : token.strip(), trusted);
    }

    /** Trust this PEM certificate (a self-signed server's) for grpc+tls:// locations. */
    public ClientOptions trustedCertificate(Path pem) {
        return new ClientOptions(token, pem);
    }

    public String token() {
        return token;
    }

    public Path trustedCertificate() {
        return trusted;
    }
}
