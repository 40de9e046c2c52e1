package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Libc;

import dev.sharedarrays.Backend;
import java.io.IOException;
import java.nio.file.Files;

/**
 * The process default backend. Order: {@code SHARED_ARRAYS_BACKEND}, then the choice made in
 * code, then auto-detection (shm if the shm directory has strictly more than
 * {@code SHARED_ARRAYS_SHM_MIN_FREE} bytes free, else memfd, else file), done once.
 */
public final class BackendSelection {
    private static volatile Backend chosenInCode;
    private static volatile Backend detected;

    private BackendSelection() {
    }

    public static void choose(Backend backend) {
        chosenInCode = backend;
    }

    public static Backend current() {
        Backend env = Config.envBackend();
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
            long free = Files.getFileStore(Config.shmDir()).getUsableSpace();
            if (free > Config.shmMinFree()) {
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
}
