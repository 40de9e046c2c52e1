package dev.sharedarrays;

/**
 * A bounded wait of a pool or queue ran out of time: no free slot ({@link ArrayPool#acquire}),
 * no room ({@link ArrayQueue#send}) or no message ({@link ArrayQueue#receive}). Nothing was
 * taken or sent; the call may be repeated.
 */
public class WaitTimeoutException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public WaitTimeoutException(String message) {
        super(message);
    }
}
