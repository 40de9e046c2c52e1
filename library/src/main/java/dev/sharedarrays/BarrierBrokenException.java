package dev.sharedarrays;

/**
 * A {@link SharedBarrier} cannot trip: a registered party died or left, a wait timed out or
 * was cancelled. Once broken, a barrier stays broken for every party, in every process.
 */
public class BarrierBrokenException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    /** Why a barrier broke. */
    public enum Reason {
        /** A registered party's process ended before the barrier tripped. */
        PARTY_DIED,
        /** A registered party closed the barrier, so it cannot trip any more. */
        PARTY_LEFT,
        /** A party's wait ran out of time. */
        TIMED_OUT,
        /** A party's wait was cancelled or interrupted. */
        CANCELLED
    }

    private final Reason reason;
    private final long pid;

    public BarrierBrokenException(String message, Reason reason, long pid) {
        super(message);
        this.reason = reason;
        this.pid = pid;
    }

    public Reason reason() {
        return reason;
    }

    /** The process that broke the barrier: the dead party, or the one that timed out or was cancelled. */
    public long pid() {
        return pid;
    }
}
