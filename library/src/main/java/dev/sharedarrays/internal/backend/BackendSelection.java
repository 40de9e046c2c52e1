package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Env;
import dev.sharedarrays.internal.os.Libc;

import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import java.io.IOException;
import java.nio.file.Files;

/**
 * The one place that decides which backend an array gets. For a create: an explicit file means
 * file; else {@code SHARED_ARRAYS_BACKEND}, then the backend the options ask for, then the
 * process default. The process default: {@code SHARED_ARRAYS_BACKEND}, then the choice made in
 * code, then auto-detection (shm if the shm directory has strictly more than
 * {@code SHARED_ARRAYS_SHM_MIN_FREE} bytes free, else memfd, else file), done once.
 * Variables are read when asked, so that child processes of tests may set their own.
 */
public final class BackendSelection {
    public static final String BACKEND_ENV = "SHARED_ARRAYS_BACKEND";
    public static final String MIN_FREE_ENV = "SHARED_ARRAYS_SHM_MIN_FREE";
    public static final long DEFAULT_MIN_FREE = 64L << 20;

    private static volatile Backend chosenInCode;
    private static volatile Backend detected;

    private BackendSelection() {
    }

    /**
     * The backend of an array created with these options.
     *
     * @throws IllegalArgumentException if {@code SHARED_ARRAYS_BACKEND} names no backend
     */
    public static Backend forCreate(CreateOptions options) {
        if (options.file() != null) {
            return Backend.FILE; // the environment does not move a path the program chose
        }
        Backend env = envBackend();
        return env != null ? env : options.backend() != null ? options.backend() : current();
    }

    public static void choose(Backend backend) {
        chosenInCode = backend;
    }

    /** The process default. */
    public static Backend current() {
        Backend env = envBackend();
        if (env != null) {
            return env;
        }
        Backend code = chosenInCode;
        if (code != null) {
            return code;
        }
        Backend d = detected;
        if (d == null) {
            synchronized (BackendSelection.class) {
                d = detected;
                if (d == null) {
                    d = detect();
                    detected = d;
                }
            }
        }
        return d;
    }

    /** The auto-detection alone, uncached. */
    public static Backend detect() {
        try {
            long free = Files.getFileStore(ShmBackend.directory()).getUsableSpace();
            if (free > shmMinFree()) {
                return Backend.SHM;
            }
        } catch (IOException | IllegalStateException e) {
            // no usable shm directory: fall through
        }
        int fd = Libc.memfdCreate("sa-probe", Libc.MFD_CLOEXEC | Libc.MFD_ALLOW_SEALING);
        if (fd >= 0) {
            Libc.close(fd);
            return Backend.MEMFD;
        }
        return Backend.FILE;
    }

    /** {@code SHARED_ARRAYS_BACKEND}, or null when unset or empty. */
    static Backend envBackend() {
        String v = Env.get(BACKEND_ENV);
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
    static long shmMinFree() {
        String v = Env.get(MIN_FREE_ENV);
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
}
