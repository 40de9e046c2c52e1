package dev.sharedarrays;

/**
 * A bounded wait ran out of time: no free slot ({@link ArrayPool#acquire}), no room
 * ({@link ArrayQueue#send}), no message ({@link ArrayQueue#receive}), or a lock another process
 * or thread held all that time (a queue's, or an array's: {@link SharedNDArray#lockWrite(java.time.Duration)}).
 * The message names the holder's pid and says whether it is stopped (SIGSTOP, a debugger).
 * Nothing was taken, sent or locked; the call may be repeated.
 */
public class WaitTimeoutException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public WaitTimeoutException(String message) {
        super(message);
    }
}
