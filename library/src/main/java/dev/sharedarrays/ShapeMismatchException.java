package dev.sharedarrays;

/** Two arrays' shapes, or a requested shape and an array's size, do not fit together. */
public final class ShapeMismatchException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public ShapeMismatchException(String message) {
        super(message);
    }
}
