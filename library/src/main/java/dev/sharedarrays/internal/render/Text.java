package dev.sharedarrays.internal.render;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * Labels: number formatting and drawing. A JDK without usable fonts (a bare container without
 * fontconfig) throws from text calls; the picture is then drawn without its labels rather than
 * not at all.
 */
final class Text {
    static final int LINE = 16;
    private static final Font FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

    private Text() {
    }

    /** A short label for a double: integers plainly, others with 6 significant digits. */
    static String number(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return Double.isNaN(x) ? "NaN" : x > 0 ? "inf" : "-inf";
        }
        if (x == Math.rint(x) && Math.abs(x) < 1e15) {
            return Long.toString((long) x);
        }
        double m = Math.abs(x);
        if (m >= 1e-4 && m < 1e9) {
            return new BigDecimal(x).round(new MathContext(6)).stripTrailingZeros().toPlainString();
        }
        return String.format("%.4e", x);
    }

    static void setUp(Graphics2D g) {
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setFont(FONT);
    }

    static void draw(Graphics2D g, String s, int x, int baseline) {
        try {
            g.setColor(Color.BLACK);
            g.drawString(s, x, baseline);
        } catch (RuntimeException | LinkageError e) {
            // no fonts on this machine: the picture without this label
        }
    }

    static int width(Graphics2D g, String s) {
        try {
            return g.getFontMetrics(FONT).stringWidth(s);
        } catch (RuntimeException | LinkageError e) {
            return 7 * s.length();
        }
    }
}
