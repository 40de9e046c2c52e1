package dev.sharedarrays.internal.render;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.util.List;

/**
 * A 1-D array as a line plot: element index across, value up, the minimum and maximum labelled
 * on the left, the first and last index below. A downsampled array is drawn as one vertical
 * stroke per pixel column, from the column's minimum to its maximum, joined to the next. NaN
 * elements leave a gap.
 */
final class LinePlot {
    static final int WIDTH = 640;
    static final int HEIGHT = 240;
    static final int LINE_RGB = 0x1f77b4;
    private static final int MARGIN = 10;
    private static final int AXIS_RGB = 0x808080;

    private LinePlot() {
    }

    static Picture draw(Profile p, List<String> caption, String low, String high) {
        BufferedImage probe = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D pg = probe.createGraphics();
        Text.setUp(pg);
        int labelW = Math.max(Text.width(pg, low), Text.width(pg, high));
        int captionW = 0;
        for (String s : caption) {
            captionW = Math.max(captionW, Text.width(pg, s));
        }
        String last = Long.toString(p.length - 1);
        int lastW = Text.width(pg, last);
        pg.dispose();

        int plotX = MARGIN + labelW + 8;
        int plotY = MARGIN + caption.size() * Text.LINE + 8;
        int width = Math.max(plotX + WIDTH + MARGIN + lastW / 2, captionW + 2 * MARGIN);
        int height = plotY + HEIGHT + 6 + Text.LINE + MARGIN;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        Text.setUp(g);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        for (int i = 0; i < caption.size(); i++) {
            Text.draw(g, caption.get(i), MARGIN, MARGIN + (i + 1) * Text.LINE - 4);
        }
        g.setColor(new Color(AXIS_RGB));
        g.drawRect(plotX - 1, plotY - 1, WIDTH + 1, HEIGHT + 1);
        Text.draw(g, high, plotX - 6 - Text.width(g, high), plotY + 9);
        Text.draw(g, low, plotX - 6 - Text.width(g, low), plotY + HEIGHT);
        Text.draw(g, "0", plotX, plotY + HEIGHT + 4 + Text.LINE);
        Text.draw(g, last, plotX + WIDTH - lastW, plotY + HEIGHT + 4 + Text.LINE);

        g.setColor(new Color(LINE_RGB));
        g.setStroke(new BasicStroke(1f));
        int prevX = -1, prevY = -1;
        for (int c = 0; c < p.columns; c++) {
            if (Double.isNaN(p.low[c])) {
                prevX = -1; // a gap
                continue;
            }
            int x = x(p, c, plotX);
            int yHigh = y(p, p.high[c], plotY);
            int yLow = y(p, p.low[c], plotY);
            if (prevX >= 0) {
                g.drawLine(prevX, prevY, x, p.downsampled() ? yHigh : yLow);
            }
            g.drawLine(x, yHigh, x, yLow);
            if (!p.downsampled() && p.columns <= 64) {
                g.fillRect(x - 1, yLow - 1, 3, 3);
            }
            prevX = x;
            prevY = yLow;
        }
        g.dispose();
        return new Picture(img, plotX, plotY, WIDTH, HEIGHT, 0, 0, List.copyOf(caption));
    }

    /** The pixel column of profile column {@code c}: the first at the left edge, the last at the right. */
    static int x(Profile p, int c, int plotX) {
        return plotX + (p.columns == 1 ? WIDTH / 2 : (int) Math.round((double) c * (WIDTH - 1) / (p.columns - 1)));
    }

    /** The pixel row of value {@code v}: the maximum on the top row, the minimum on the bottom one. */
    static int y(Profile p, double v, int plotY) {
        return plotY + (int) Math.round((1.0 - p.position(v)) * (HEIGHT - 1));
    }
}
