package dev.sharedarrays.internal.array;

import java.util.Arrays;

/**
 * Walks several layouts of one shape in step, row by row, in the row-major order of the shape:
 * the operands and the result of an element-wise operation, each with its own item size (a
 * comparison reads F64 rows and writes BOOL rows). Axes that are adjacent in memory in every
 * layout are merged, so operands that are all contiguous make one row; a stride of 0 (a
 * broadcast axis, a scalar operand) repeats an element.
 */
public final class ZipRows {
    private ZipRows() {
    }

    /** One row: for operand k, byte offset {@code off[k]} and byte stride {@code stride[k]}; n elements. */
    public interface Visitor {
        void row(long[] off, long[] stride, long n);
    }

    /**
     * Calls the visitor for every row. The arrays it receives are reused between calls.
     *
     * @throws IllegalArgumentException if a layout's shape differs from the first one's
     */
    public static void rows(StridedLayout[] layouts, int[] itemSizes, Visitor v) {
        int k = layouts.length;
        long[] full = layouts[0].shape();
        int nd = full.length;
        for (StridedLayout l : layouts) {
            if (!Arrays.equals(l.shape(), full)) {
                throw new IllegalArgumentException("operands of shapes " + Arrays.toString(full) + " and "
                        + Arrays.toString(l.shape()) + " walked in step");
            }
        }
        // merged axes: shape[a], and strides[j][a] of operand j, in elements
        long[] shape = new long[nd];
        long[][] strides = new long[k][nd];
        int m = 0;
        for (int a = 0; a < nd; a++) {
            long d = full[a];
            if (d == 1) {
                continue;
            }
            boolean merge = m > 0;
            for (int j = 0; j < k && merge; j++) {
                merge = strides[j][m - 1] == layouts[j].strides()[a] * d;
            }
            if (merge) {
                shape[m - 1] *= d;
                for (int j = 0; j < k; j++) {
                    strides[j][m - 1] = layouts[j].strides()[a];
                }
            } else {
                shape[m] = d;
                for (int j = 0; j < k; j++) {
                    strides[j][m] = layouts[j].strides()[a];
                }
                m++;
            }
        }
        long[] off = new long[k];
        long[] rowOff = new long[k];
        long[] rowStride = new long[k];
        for (int j = 0; j < k; j++) {
            off[j] = layouts[j].offset() * itemSizes[j];
        }
        if (m == 0) {
            for (int j = 0; j < k; j++) {
                rowStride[j] = itemSizes[j];
            }
            v.row(off, rowStride, 1);
            return;
        }
        int last = m - 1;
        for (int j = 0; j < k; j++) {
            rowStride[j] = strides[j][last] * itemSizes[j];
        }
        long[] idx = new long[last];
        while (true) {
            System.arraycopy(off, 0, rowOff, 0, k);
            v.row(rowOff, rowStride, shape[last]);
            int a = last - 1;
            while (a >= 0) {
                idx[a]++;
                for (int j = 0; j < k; j++) {
                    off[j] += strides[j][a] * itemSizes[j];
                }
                if (idx[a] < shape[a]) {
                    break;
                }
                for (int j = 0; j < k; j++) {
                    off[j] -= shape[a] * strides[j][a] * itemSizes[j];
                }
                idx[a] = 0;
                a--;
            }
            if (a < 0) {
                return;
            }
        }
    }
}
