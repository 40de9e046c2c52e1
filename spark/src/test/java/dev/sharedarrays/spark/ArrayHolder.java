package dev.sharedarrays.spark;

import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;

/**
 * Host A's array in {@link SparkClusterTest}: NAME of ROWS x 4 f64 of whole numbers (so that any
 * order of summing gives the same sum); prints READY and keeps it until stdin closes, then removes it.
 */
public final class ArrayHolder {
    private ArrayHolder() {
    }

    public static void main(String[] args) throws Exception {
        long rows = Long.parseLong(args[1]);
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {rows, 4}, CreateOptions.defaults().name(args[0]))) {
            for (long i = 0; i < a.size(); i++) {
                a.setDouble(i, (i * 7919) % 1000 - 500);
            }
            System.out.println("READY " + a.handle());
            System.out.flush();
            System.in.readAllBytes();
        }
    }
}
