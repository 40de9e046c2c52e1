package dev.sharedarrays.benchmarks;

import dev.sharedarrays.ArrayMath;
import dev.sharedarrays.Backend;
import dev.sharedarrays.Bool;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F32;
import dev.sharedarrays.F64;
import dev.sharedarrays.Masks;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The second table of {@code bin/bench ops}: the numpy habits (out-of-place results, broadcasting,
 * math, masks, per-axis reductions, sort) against numpy on the same shared data. Out-of-place
 * results are process-local arrays here and fresh arrays in numpy, so both pay for their memory.
 */
final class NumpyHabitsRows {
    static final long N = 16_000_000;
    static final int SIDE = 4000;
    /** The threads parallelSorted uses: a core each, the common pool's workers and the caller. */
    static final int CORES = Math.min(Runtime.getRuntime().availableProcessors(),
            java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() + 1);

    private NumpyHabitsRows() {
    }

    static void run(int runs) throws Exception {
        CreateOptions shm = CreateOptions.defaults().backend(Backend.SHM);
        List<SharedNDArray<?>> all = new ArrayList<>();
        try {
            SharedNDArray<F64> a = add(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SharedNDArray<F64> b = add(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SharedNDArray<F64> m = add(all, SharedArrays.create(F64.TYPE, new long[] {SIDE, SIDE}, shm));
            SharedNDArray<F64> row = add(all, SharedArrays.create(F64.TYPE, new long[] {SIDE}, shm));
            SplittableRandom rnd = new SplittableRandom(7);
            for (SharedNDArray<F64> x : List.of(a, b, m, row)) {
                for (long i = 0; i < x.size(); i++) {
                    x.data().setAtIndex(ValueLayout.JAVA_DOUBLE, i, rnd.nextDouble());
                }
            }
            SharedNDArray<Bool> mask = add(all, a.gt(0.5).share(shm));
            String[][] rows = {
                {"matrix += row (4000x4000 f64, broadcast)", "iadd_row"},
                {"c = a + b (16M f64, new array)", "add"},
                {"sqrt(a) (16M f64)", "sqrt"},
                {"exp(a) (16M f64)", "exp"},
                {"a.astype(F32) (16M f64)", "astype_f32"},
                {"a > 0.5 (16M f64, new bool array)", "gt"},
                {"where(mask, a, b) (16M f64)", "where"},
                {"argmax (16M f64)", "argmax"},
                {"cumsum (16M f64)", "cumsum"},
                {"sum(axis = 0) (4000x4000 f64, C order)", "sum_axis0"},
                {"sorted copy (16M f64)", "sort"},
                {"sorted copy, " + CORES + " threads (parallelSorted; numpy: 1)", "sort"},
            };
            // whether the op drops a result that is a mapping (over 256 KiB)
            boolean[] dropsMapping = {false, true, true, true, true, true, true, false, true, false, true, true};
            double[] sink = new double[1];
            OpsBenchmark.Op[] ops = {
                () -> m.add(row),
                () -> sink[0] += a.plus(b).getDouble(0),
                () -> sink[0] += ArrayMath.sqrt(a).getDouble(0),
                () -> sink[0] += ArrayMath.exp(a).getDouble(0),
                () -> sink[0] += a.astype(F32.TYPE).getDouble(0),
                () -> sink[0] += a.gt(0.5).getLong(0),
                () -> sink[0] += Masks.where(mask, a, b).getDouble(0),
                () -> sink[0] += a.argmax(),
                () -> sink[0] += a.cumsum().getDouble(0),
                () -> sink[0] += m.sum(0).getDouble(0),
                () -> sink[0] += a.sorted().getDouble(0),
                () -> sink[0] += a.parallelSorted().getDouble(0),
            };
            System.out.printf("%n%-56s %12s %12s %8s%n", "numpy habits (after " + WarmUp.CALLS + "+ warm-up calls)", "ours (ms)",
                    "numpy (ms)", "ratio");
            double worst = 0;
            try (NumpyPeer np = NumpyPeer.start("habits_bench.py", List.of(), List.of(a, b, m, row, mask))) {
                for (int i = 0; i < ops.length; i++) {
                    double[] t = OpsBenchmark.alternate(ops[i], np, rows[i][1], runs, dropsMapping[i]);
                    if (i < ops.length - 1) { // the multi-core row is no like-for-like ratio
                        worst = Math.max(worst, t[0] / t[1]);
                    }
                    System.out.printf(Locale.ROOT, "%-56s %12.1f %12.1f %8.2f%n", rows[i][0], t[0], t[1], t[0] / t[1]);
                }
            }
            System.out.printf(Locale.ROOT, "%nworst ratio of the numpy habits: %.2f%n", worst);
            if (sink[0] == 42) {
                System.out.println();
            }
        } finally {
            all.forEach(SharedNDArray::close);
        }
    }

    private static <T extends SharedNDArray<?>> T add(List<SharedNDArray<?>> all, T a) {
        all.add(a);
        return a;
    }
}
