package dev.sharedarrays;

/** Creation asked for a name or path that already exists; the existing file was not touched. */
public final class SegmentExistsException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public SegmentExistsException(String message) {
        super(message);
    }
}
