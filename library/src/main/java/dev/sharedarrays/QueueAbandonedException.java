package dev.sharedarrays;

import java.util.List;

/**
 * An {@link ArrayQueue} wait cannot end: the queue is empty and every registered producer died
 * (for a receiver), or full and every registered consumer died (for a sender). A process
 * registers as a producer at its first send and as a consumer at its first receive; one that
 * closes the queue normally is not counted as dead.
 */
public class QueueAbandonedException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    private final List<Long> pids;

    public QueueAbandonedException(String message, List<Long> pids) {
        super(message);
        this.pids = List.copyOf(pids);
    }

    /** The dead processes that had registered. */
    public List<Long> pids() {
        return pids;
    }
}
