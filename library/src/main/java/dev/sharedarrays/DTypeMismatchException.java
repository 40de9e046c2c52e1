package dev.sharedarrays;

/** An array's element type is not the one the caller asked for or the operation needs. */
public final class DTypeMismatchException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public DTypeMismatchException(String message) {
        super(message);
    }
}
