package dev.sharedarrays;

import dev.sharedarrays.internal.backend.FdPassing;
import java.nio.file.Path;

/**
 * Hands a memfd array's descriptor to other processes over a Unix domain socket (SCM_RIGHTS).
 * A background daemon thread accepts connections until {@link #close()}, which also removes
 * the socket file. Other processes call {@link SharedArrays#receive(Path)}.
 */
public final class HandleServer implements AutoCloseable {
    private final FdPassing.Server server;

    HandleServer(SharedNDArray<?> array, Path socketPath) {
        if (array.backend() != Backend.MEMFD) {
            throw new IllegalArgumentException("serve passes memfd descriptors, but " + array.handle()
                    + " is a " + array.backend().id() + " array: pass its handle string instead");
        }
        this.server = new FdPassing.Server(array::descriptor, array.handle().toString(), socketPath);
    }

    public Path socketPath() {
        return server.path();
    }

    /** How many processes received the descriptor so far. */
    public int served() {
        return server.served();
    }

    /** Stops serving and removes the socket file. Idempotent. */
    @Override
    public void close() {
        server.close();
    }
}
