package dev.sharedarrays.flight.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * The bearer token a server uses when none is given: 32 random bytes in hex, in a file of mode
 * 0600 in a directory of mode 0700 that belong to this user, so that no other local user can read
 * it. Clients on the same host read it from the same path. The path: {@code
 * SHARED_ARRAYS_FLIGHT_TOKEN_FILE} if set, else {@code $XDG_RUNTIME_DIR/sharedarrays/flight-token},
 * else {@code ~/.local/share/sharedarrays/runtime/flight-token} (as Jupyter keeps its runtime files).
 * A file another user owns, or that others may read, is refused: its token is not a secret.
 */
public final class TokenFile {
    public static final String ENV = "SHARED_ARRAYS_FLIGHT_TOKEN_FILE";
    private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");

    private TokenFile() {
    }

    /** Where this user's default token is (whether or not the file exists yet). */
    public static Path defaultPath() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env).toAbsolutePath();
        }
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        if (runtime != null && runtime.startsWith("/") && Files.isDirectory(Path.of(runtime))) {
            return Path.of(runtime, "sharedarrays", "flight-token");
        }
        return Path.of(System.getProperty("user.home"), ".local", "share", "sharedarrays", "runtime", "flight-token");
    }

    /**
     * The token in {@code file}, made first if the file does not exist (atomically: two servers
     * starting at once read the same token).
     *
     * @throws IllegalStateException if the file or its directory is another user's or others may
     *         read it, or it cannot be read or made; the message says which and the fix
     */
    public static String readOrCreate(Path file) {
        String t = readIfPresent(file);
        if (t != null) {
            return t;
        }
        Path dir = file.getParent();
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            }
            checkPrivate(dir, true);
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String token = HexFormat.of().formatHex(random);
            // written whole under a name of its own, then linked into place: a reader never sees half a token
            Path temp = Files.createTempFile(dir, ".flight-token-", ".tmp", PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
            try {
                Files.writeString(temp, token + "\n", StandardCharsets.US_ASCII);
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException e) {
                // another server made it first: its token is the one
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the bearer token file " + file + ": " + e
                    + "; pass --token-file FILE (ServeOptions.token), or set " + ENV + " to a path of yours", e);
        }
        String made = readIfPresent(file);
        if (made == null) {
            throw new IllegalStateException("the bearer token file " + file + " vanished right after it was made");
        }
        return made;
    }

    /**
     * The token in {@code file}, or null if there is no such file.
     *
     * @throws IllegalStateException if it is not a regular file of this user with mode 0600 (or
     *         stricter) in a directory only this user may write to, or holds no token
     */
    public static String readIfPresent(Path file) {
        try {
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            checkPrivate(file.getParent(), true);
            checkPrivate(file, false);
            String token = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (token.isEmpty()) {
                throw new IllegalStateException("the bearer token file " + file + " is empty; remove it to have a new token made");
            }
            return token;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the bearer token file " + file + ": " + e, e);
        }
    }

    /** Refuses a path that is not this user's, or that others may read (a file) or write (a directory). */
    private static void checkPrivate(Path p, boolean directory) throws IOException {
        int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        String kind = directory ? "directory" : "file";
        boolean rightKind = directory ? (mode & 0170000) == 0040000 : (mode & 0170000) == 0100000;
        if (!rightKind) {
            throw new IllegalStateException("the bearer token " + kind + " " + p + " is not a " + (directory ? "directory" : "regular file")
                    + " (a symbolic link is refused); remove it");
        }
        if (uid != me) {
            throw new IllegalStateException("the bearer token " + kind + " " + p + " belongs to uid " + uid + ", not to this user (uid "
                    + me + "); remove it, or set " + ENV + " to a path of yours");
        }
        int others = directory ? 022 : 077;
        if ((mode & others) != 0) {
            throw new IllegalStateException("the bearer token " + kind + " " + p + " has mode 0" + Integer.toOctalString(mode & 07777)
                    + ": other users may " + (directory ? "replace the token in it" : "read the token")
                    + "; chmod " + (directory ? "700 " : "600 ") + p + (directory ? "" : " and remove it so that a new token is made"));
        }
    }
}
