package dev.sharedarrays;

/** Attach found no segment under the name, path or descriptor of the handle. */
public final class SegmentNotFoundException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public SegmentNotFoundException(String message) {
        super(message);
    }
}
