package dev.sharedarrays.flight.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/** Accepts a call whose {@code authorization} header is {@code Bearer <token>}; refuses any other with UNAUTHENTICATED. */
public final class TokenAuthenticator implements CallHeaderAuthenticator {
    private final byte[] token;

    public TokenAuthenticator(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public AuthResult authenticate(CallHeaders headers) {
        String h = headers.get("authorization");
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw CallStatus.UNAUTHENTICATED.withDescription("this shared-arrays Flight server needs a bearer token"
                    + " (header authorization: Bearer <token>, the contents of its --token-file); the call had none").toRuntimeException();
        }
        byte[] given = h.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token)) {
            throw CallStatus.UNAUTHENTICATED.withDescription("wrong bearer token for this shared-arrays Flight server"
                    + " (use the contents of its --token-file)").toRuntimeException();
        }
        return () -> "token";
    }
}
