package dev.sharedarrays;

/**
 * Creation could not reserve the memory an array needs. Nothing was left behind.
 */
public final class InsufficientSpaceException extends SharedArrayException {
    private static final long serialVersionUID = 1L;
    private final long requested;
    private final long available;

    public InsufficientSpaceException(String message, long requested, long available) {
        super(message);
        this.requested = requested;
        this.available = available;
    }

    /** Bytes the segment needed. */
    public long requested() {
        return requested;
    }

    /** Bytes that were free where it was to be made, or -1 if unknown. */
    public long available() {
        return available;
    }
}
