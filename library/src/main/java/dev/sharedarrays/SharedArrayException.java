package dev.sharedarrays;

/**
 * Base of the exceptions this library throws for conditions of shared memory (as opposed to
 * programming errors, which are {@link IllegalArgumentException}, {@link IllegalStateException}
 * and {@link IndexOutOfBoundsException}). Messages carry the offending values and, where there
 * is one, the fix.
 */
public class SharedArrayException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SharedArrayException(String message) {
        super(message);
    }

    public SharedArrayException(String message, Throwable cause) {
        super(message, cause);
    }
}
