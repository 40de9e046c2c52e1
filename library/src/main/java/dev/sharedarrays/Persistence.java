package dev.sharedarrays;

import dev.sharedarrays.internal.ndarray.ConversionOps;
import java.nio.file.Path;

/**
 * Saving a {@link SharedNDArray} to a .npy file, numpy's {@code np.save}; {@link SharedArrays#load}
 * reads it back.
 *
 * @param <T> the element type marker
 */
public sealed interface Persistence<T extends DType<T>> permits SharedNDArray {

    /**
     * Writes this array or view to {@code path} as a .npy file (format 1.0, C order, the
     * elements in row-major order, little-endian) that {@code numpy.load(path)} reads as an
     * array of the same dtype, shape and values. What is at {@code path} is replaced; if the
     * write fails, the partial file is deleted. Holds the array's read lock while writing.
     * Symbolic links are followed, as {@code np.save} follows them; only a regular file is
     * written: a FIFO, device, socket or directory at the path is refused at once (opened
     * without blocking, checked through the descriptor), never waited on.
     *
     * @throws IllegalArgumentException if {@code path} is this array's own segment file (writing
     *         would truncate the memory being saved)
     * @throws java.io.UncheckedIOException if the file cannot be written, or what is at
     *         {@code path} is not a regular file (the message says what it is)
     */
    default void save(Path path) {
        SharedNDArray<T> a = (SharedNDArray<T>) this;
        ConversionOps.save(a.core(), path, a.path());
    }
}
