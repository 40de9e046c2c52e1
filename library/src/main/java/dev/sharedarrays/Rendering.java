package dev.sharedarrays;

import dev.sharedarrays.internal.render.Pictures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Pictures of a {@link SharedNDArray} as PNG, made by the JDK alone ({@code javax.imageio}): a
 * 2-D array as a heat map with a colour bar labelled with its minimum and maximum, a 1-D array as
 * a line plot, a Bool mask in black (false) and white (true). Axes of length 1 are dropped
 * first. An array larger than 800 cells on a side (800 points for a line) is downsampled: a heat
 * map cell is the mean of its block, a line plot column spans its elements' minimum to maximum,
 * and the caption above the picture says so ({@code downsampled 4096x4096 -> 683x683}); every
 * element is read, under the array's read lock, one row at a time. NaN cells are grey and NaN
 * points gaps, both counted in the caption; a constant array is drawn in the middle of the scale.
 * Notebooks show arrays with these pictures (see {@code bin/notebook}).
 *
 * @param <T> the element type marker
 */
public sealed interface Rendering<T extends DType<T>> permits SharedNDArray {

    /**
     * This array as a PNG image.
     *
     * @throws IllegalArgumentException if more than two axes are longer than 1 (select a 2-D
     *         part first, e.g. {@code a.select(0, 0)})
     * @throws UnsupportedOperationException if this runtime has no {@code java.desktop} module
     *         (a jlink image without it, or a modular application that does not add it)
     */
    default byte[] toPng() {
        return Pictures.png(new ArrayDrawing((SharedNDArray<T>) this));
    }

    /**
     * Writes {@link #toPng()} to {@code path}, replacing what is there.
     *
     * @throws IllegalArgumentException as {@link #toPng()}
     * @throws UncheckedIOException if the file cannot be written
     */
    default void toPng(Path path) {
        byte[] png = toPng();
        try {
            Files.write(path, png);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e, e);
        }
    }
}
