package dev.sharedarrays.flight.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a server's TLS files before it starts: gRPC accepts a private key that does not belong
 * to the certificate and only every handshake fails later. The key (unencrypted PKCS#8 PEM, what
 * gRPC reads without Bouncy Castle) signs random bytes that the certificate's public key must verify.
 */
public final class TlsFiles {
    private static final Pattern PKCS8 = Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    private TlsFiles() {
    }

    /**
     * @throws IllegalArgumentException if a file cannot be read, is not a PEM certificate or an
     *         unencrypted PKCS#8 PEM key, or the key does not match the certificate; the message names the files
     */
    public static void check(Path certificate, Path key) {
        X509Certificate cert;
        try (InputStream in = Files.newInputStream(certificate)) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (IOException | GeneralSecurityException | ClassCastException e) {
            throw new IllegalArgumentException("cannot read the TLS certificate " + certificate + " (a PEM X.509 certificate): " + e.getMessage(), e);
        }
        PublicKey pub = cert.getPublicKey();
        PrivateKey priv;
        try {
            Matcher m = PKCS8.matcher(Files.readString(key, StandardCharsets.US_ASCII));
            if (!m.find()) {
                throw new IllegalArgumentException("the TLS key " + key + " is not an unencrypted PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----);"
                        + " convert it with openssl pkcs8 -topk8 -nocrypt -in " + key);
            }
            byte[] der = Base64.getMimeDecoder().decode(m.group(1));
            priv = KeyFactory.getInstance(pub.getAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the TLS key " + key + " as a " + pub.getAlgorithm() + " key (the certificate's):"
                    + " " + e.getMessage(), e);
        }
        String alg = switch (pub.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "DSA" -> "SHA256withDSA";
            default -> pub.getAlgorithm(); // EdDSA: Ed25519, Ed448
        };
        boolean matches;
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature s = Signature.getInstance(alg);
            s.initSign(priv);
            s.update(probe);
            byte[] sig = s.sign();
            s.initVerify(pub);
            s.update(probe);
            matches = s.verify(sig);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException("the TLS key " + key + " does not belong to the certificate " + certificate
                    + " (" + cert.getSubjectX500Principal() + "): pass the key the certificate was made for");
        }
    }
}
