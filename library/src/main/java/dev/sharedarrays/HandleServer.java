package dev.sharedarrays;

import dev.sharedarrays.internal.backend.FdPassing;
import java.nio.file.Path;

/**
 * Hands a memfd array's descriptor to other processes over a Unix domain socket (SCM_RIGHTS).
 * A background daemon thread accepts connections until {@link #close()}, which also removes
 * the socket file. Other processes call {@link SharedArrays#receive(Path)}.
 *
 * <p><b>Who gets the descriptor.</b> Only processes of the same user. The socket file is mode
 * 0600 whatever the umask (it is born 0600, and checked before the socket listens, so there is
 * no moment at which another user could connect), and before sending, the server asks the
 * kernel for the peer's uid (SO_PEERCRED): a peer of another uid (root included, which passes
 * any file mode) is disconnected without a descriptor; its {@code receive} fails with
 * {@link SharedArrayException}. Nothing is printed about refused peers.
 *
 * <p><b>Threads.</b> Thread-safe; the serving thread is a daemon and ends at {@link #close()}.
 */
public final class HandleServer implements AutoCloseable {
    private final FdPassing.Server server;

    HandleServer(SharedNDArray<?> array, Path socketPath) {
        if (array.backend() != Backend.MEMFD) {
            throw new IllegalArgumentException("serve passes memfd descriptors, but " + array.handle()
                    + " is a " + array.backend().id() + " array: pass its handle string instead");
        }
        this.server = new FdPassing.Server(array.core()::descriptor, array.handle().toString(), socketPath);
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
