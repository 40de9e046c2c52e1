package dev.sharedarrays.internal.render;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A drawn array and where its data went: the plot area (heat map cells or line plot axes) and, for
 * heat maps, the size of one cell, so tests can find the pixel of an element.
 *
 * @param caption the lines written above the plot (shape, downsampling, NaN counts)
 */
public record Picture(BufferedImage image, int plotX, int plotY, int plotWidth, int plotHeight, int cellWidth,
        int cellHeight, List<String> caption) {

    /** The image as PNG bytes. */
    public byte[] png() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("this JDK has no PNG writer in javax.imageio");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a PNG in memory: " + e, e); // a byte array does not fail
        }
        return out.toByteArray();
    }
}
