package dev.sharedarrays.internal.render;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;

/**
 * A 2-D array as a heat map: one cell per element (or per block of a downsampled array), coloured
 * by {@link ColorScale} from the minimum to the maximum, with a colour bar labelled with both; a
 * Bool mask in black (false) and white (true), grey where a downsampled block is mixed.
 */
final class HeatMap {
    static final int MARGIN = 10;
    /** Small arrays are enlarged to about this many pixels on their long side. */
    private static final int TARGET = 400;
    private static final int MAX_CELL = 40;
    /** A thin array (one row) still gets a visible strip. */
    private static final int MIN_EXTENT = 24;
    private static final int BAR_WIDTH = 16;
    private static final int BAR_MIN_HEIGHT = 120;

    private HeatMap() {
    }

    /**
     * @param low label of the low end of the scale (the exact minimum), high likewise
     * @param mask true for a Bool array: black and white, no colour bar
     */
    static Picture draw(Grid g, List<String> caption, String low, String high, boolean mask) {
        int cell = Math.max(1, Math.min(MAX_CELL, TARGET / Math.max(g.height, g.width)));
        int cellH = Math.max(cell, ceil(MIN_EXTENT, g.height));
        int cellW = Math.max(cell, ceil(MIN_EXTENT, g.width));
        int mapW = g.width * cellW;
        int mapH = g.height * cellH;
        List<String> lines = new ArrayList<>(caption);
        BufferedImage probe = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D pg = probe.createGraphics();
        Text.setUp(pg);
        int captionW = 0;
        for (String s : lines) {
            captionW = Math.max(captionW, Text.width(pg, s));
        }
        int labelW = mask ? 0 : Math.max(Text.width(pg, low), Text.width(pg, high));
        pg.dispose();

        int mapX = MARGIN;
        int mapY = MARGIN + lines.size() * Text.LINE + 4;
        int barX = mapX + mapW + 12;
        int barH = Math.max(mapH, BAR_MIN_HEIGHT);
        int width = Math.max(mask ? mapX + mapW + MARGIN : barX + BAR_WIDTH + 6 + labelW + MARGIN, captionW + 2 * MARGIN);
        int height = mapY + (mask ? mapH : barH) + MARGIN;

        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D gr = img.createGraphics();
        Text.setUp(gr);
        gr.setColor(Color.WHITE);
        gr.fillRect(0, 0, width, height);
        for (int i = 0; i < lines.size(); i++) {
            Text.draw(gr, lines.get(i), MARGIN, MARGIN + (i + 1) * Text.LINE - 4);
        }
        for (int r = 0; r < g.height; r++) {
            for (int c = 0; c < g.width; c++) {
                double v = g.cells[r * g.width + c];
                int rgb = mask ? grey(v) : ColorScale.rgb(g.position(v));
                fill(img, mapX + c * cellW, mapY + r * cellH, cellW, cellH, rgb);
            }
        }
        if (!mask) {
            for (int j = 0; j < barH; j++) {
                double t = barH == 1 ? 1.0 : 1.0 - (double) j / (barH - 1);
                fill(img, barX, mapY + j, BAR_WIDTH, 1, ColorScale.rgb(t));
            }
            Text.draw(gr, high, barX + BAR_WIDTH + 6, mapY + 11);
            Text.draw(gr, low, barX + BAR_WIDTH + 6, mapY + barH);
        }
        gr.dispose();
        return new Picture(img, mapX, mapY, mapW, mapH, cellW, cellH, List.copyOf(lines));
    }

    /** A mask cell: the share of true elements in its block, 0 black to 1 white. */
    private static int grey(double share) {
        if (Double.isNaN(share)) {
            return ColorScale.NAN_RGB;
        }
        int v = (int) Math.round(Math.min(1.0, Math.max(0.0, share)) * 255);
        return v << 16 | v << 8 | v;
    }

    private static void fill(BufferedImage img, int x, int y, int w, int h, int rgb) {
        for (int j = y; j < y + h; j++) {
            for (int i = x; i < x + w; i++) {
                img.setRGB(i, j, rgb);
            }
        }
    }

    private static int ceil(int a, int b) {
        return (a + b - 1) / b;
    }
}
