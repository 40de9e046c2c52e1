package dev.sharedarrays.notebook;

import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.notebook.internal.ArrayDisplay;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * Helpers for notebook cells (statically imported in every cell of the shared-arrays kernel). A cell
 * whose last line is an array expression shows it by itself; {@link #display} shows one in the
 * middle of a cell, or again after a change.
 */
public final class Notebook {
    private Notebook() {
    }

    /**
     * Shows {@code value} in the cell's output now: an array as text and, for 1-D and 2-D arrays,
     * its picture ({@link SharedNDArray#toPng()}); anything else as its text.
     *
     * @throws IllegalStateException outside a notebook kernel
     */
    public static void display(Object value) {
        BaseKernel k = BaseKernel.notebookKernel();
        DisplayData d = value instanceof SharedNDArray<?> a ? ArrayDisplay.of(a) : k.getRenderer().render(value);
        k.display(d);
    }
}
