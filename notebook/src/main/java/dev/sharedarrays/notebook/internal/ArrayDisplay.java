package dev.sharedarrays.notebook.internal;

import dev.sharedarrays.SharedNDArray;
import java.util.Base64;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * How a notebook shows an array: numpy's text (the array's toString) and, for 1-D and 2-D arrays
 * (axes of length 1 aside), its picture as image/png; a closed array as text only.
 */
public final class ArrayDisplay {
    private ArrayDisplay() {
    }

    public static DisplayData of(SharedNDArray<?> a) {
        DisplayData d = new DisplayData(a.toString());
        if (!a.isClosed()) {
            try {
                d.putData("image/png", Base64.getEncoder().encodeToString(a.toPng()));
            } catch (IllegalArgumentException e) {
                // three or more axes longer than 1: no picture, the text says it all
            }
        }
        return d;
    }
}
