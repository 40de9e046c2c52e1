package dev.sharedarrays;

/**
 * Attach found something that is not a complete, consistent shared-arrays segment: too small,
 * wrong magic or version, not ready, header and control block disagreeing, or not the array the
 * handle named. The message names the path and the mismatch.
 */
public final class InvalidSegmentException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public InvalidSegmentException(String message) {
        super(message);
    }
}
