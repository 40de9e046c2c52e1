package dev.sharedarrays;

import dev.sharedarrays.internal.io.NpyWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

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
        a.checkOpen();
        Optional<Path> own = a.path();
        try {
            if (own.isPresent() && Files.exists(path) && Files.isSameFile(path, own.get())) {
                throw new IllegalArgumentException("cannot save " + a.handle() + " to " + path
                        + ", its own segment file: the segment already is a .npy file, or save to another path");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e, e);
        }
        a.locks().read(() -> {
            NpyWriter.write(path, a.type(), a.mem(), a.layout());
            return null;
        });
    }
}
