package dev.sharedarrays;

/**
 * A file given to {@link SharedArrays#load(java.nio.file.Path)} is not a .npy file this library
 * can read: not a regular file, no {@code \x93NUMPY} magic, an unknown format version, a
 * truncated file, a malformed header, a shape it cannot hold (0 dimensions, more than 8, a zero
 * dimension), or an element type it does not have (big-endian, complex, float16, strings,
 * objects, structured). The message names the path and the offending value and, where there
 * is one, the numpy call that writes a file this library reads.
 */
public final class NpyFormatException extends SharedArrayException {
    private static final long serialVersionUID = 1L;

    public NpyFormatException(String message) {
        super(message);
    }
}
