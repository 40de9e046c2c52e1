package dev.sharedarrays;

/** An operating-system call failed; the message names the call, its argument and errno. */
public final class NativeCallException extends SharedArrayException {
    private static final long serialVersionUID = 1L;
    private final String call;
    private final int errno;

    public NativeCallException(String call, int errno, String message) {
        super(message);
        this.call = call;
        this.errno = errno;
    }

    /** The C function that failed, such as {@code "mmap"}. */
    public String call() {
        return call;
    }

    /** The errno it reported. */
    public int errno() {
        return errno;
    }
}
