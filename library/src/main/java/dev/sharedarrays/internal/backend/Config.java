package dev.sharedarrays.internal.backend;

import dev.sharedarrays.Backend;
import java.nio.file.Files;
import java.nio.file.Path;

/** The environment variables of DESIGN.md, read when asked so that tests may vary them per process. */
public final class Config {
    public static final String BACKEND_ENV = "SHARED_ARRAYS_BACKEND";
    public static final String DIR_ENV = "SHARED_ARRAYS_DIR";
    public static final String MIN_FREE_ENV = "SHARED_ARRAYS_SHM_MIN_FREE";
    public static final long DEFAULT_MIN_FREE = 64L << 20;

    /** The environment of a process does not change, so a directory found once is kept. */
    private static volatile Path shmDir;

    private Config() {
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** The shm directory: {@code SHARED_ARRAYS_DIR}, default /dev/shm. */
    public static Path shmDir() {
        Path cached = shmDir;
        if (cached != null) {
            return cached;
        }
        String v = env(DIR_ENV);
        Path dir = Path.of(v == null ? "/dev/shm" : v);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException((v == null ? "/dev/shm" : DIR_ENV + "=" + v) + " is not a directory; "
                    + (v == null ? "set " + DIR_ENV + " to a tmpfs directory" : "point it at an existing directory"));
        }
        shmDir = dir;
        return dir;
    }

    /** Where file-backed arrays without a path go: {@code <java.io.tmpdir>/sharedarrays}. */
    public static Path defaultFileDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "sharedarrays");
    }

    /** {@code SHARED_ARRAYS_BACKEND}, or null when unset or empty. */
    public static Backend envBackend() {
        String v = env(BACKEND_ENV);
        if (v == null) {
            return null;
        }
        try {
            return Backend.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(BACKEND_ENV + "=" + v + ": " + e.getMessage());
        }
    }

    /** {@code SHARED_ARRAYS_SHM_MIN_FREE} in bytes, default 64 MiB. */
    public static long shmMinFree() {
        String v = env(MIN_FREE_ENV);
        if (v == null) {
            return DEFAULT_MIN_FREE;
        }
        try {
            long n = Long.parseLong(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(MIN_FREE_ENV + "=" + v + " is not a byte count; use a whole number >= 0, such as 67108864");
    }

    /** "60.1 MiB": sizes in messages. */
    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
