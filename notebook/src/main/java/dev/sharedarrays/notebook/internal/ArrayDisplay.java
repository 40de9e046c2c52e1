package dev.sharedarrays.notebook.internal;

import dev.sharedarrays.SharedNDArray;
import java.util.Base64;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * How a notebook shows an array, in both kernels: numpy's text (the array's toString) and, for
 * 1-D and 2-D arrays (axes of length 1 aside), its picture. One output holds both as text/html
 * (the text in a {@code <pre>}, the picture below it), which JupyterLab renders before the others:
 * with text/plain and image/png alone it shows only the richer, the picture. text/plain and
 * image/png stay in the bundle for frontends without HTML and for nbclient's readers. A closed
 * array is text only.
 */
public final class ArrayDisplay {
    private ArrayDisplay() {
    }

    public static DisplayData of(SharedNDArray<?> a) {
        String text = a.toString();
        DisplayData d = new DisplayData(text);
        if (!a.isClosed()) {
            try {
                String png = Base64.getEncoder().encodeToString(a.toPng());
                d.putData("image/png", png);
                d.putData("text/html", "<pre>" + escape(text) + "</pre>\n<img src=\"data:image/png;base64," + png + "\"/>");
            } catch (IllegalArgumentException e) {
                // three or more axes longer than 1: no picture, the text says it all
            }
        }
        return d;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
