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
import java.util.function.Function;

/**
 * The second table of {@code bin/bench ops}: the numpy habits (out-of-place results, broadcasting,
 * math, masks, per-axis reductions, sort) against numpy on the same shared data. Out-of-place
 * results are process-local arrays here and fresh arrays in numpy, so both pay for their memory.
 */
final class NumpyHabitsRows {
    static final long N = 16_000_000;
    static final int SIDE = 4000;

    private NumpyHabitsRows() {
    }

    static void run(int runs, boolean multiCoreOnly) throws Exception {
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
            SharedNDArray<Bool> mask;
            SharedNDArray<F32> a32;
            // the process-local results go at once, not at a collection
            try (SharedNDArray<Bool> m0 = a.gt(0.5); SharedNDArray<F32> f0 = a.astype(F32.TYPE)) {
                mask = add(all, m0.share(shm));
                a32 = add(all, f0.share(shm));
            }
            if (multiCoreOnly) {
                multiCore(new Operands(a, b, m, row, mask, a32), runs, new double[1]);
                return;
            }
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
                {"sorted copy (16M f32)", "sort_f32"},
                {"sorted copy (16M f64)", "sort"},
            };
            // whether the op drops a result that is a mapping (over 256 KiB)
            // not the f64 sort: a steady state of freed results takes up to 500 calls, seconds each without the JDK's AVX-512
            // sort; the f32 sort (JDK's AVX2 sort) takes ~25 calls of 0.15 s, and without them its 9 calls each faulted in a
            // fresh 64 MB result (169-172 ms against 140)
            boolean[] dropsMapping = {false, true, true, true, true, true, true, false, true, false, true, false};
            double[] sink = new double[1];
            List<Function<Operands, OpsBenchmark.Op>> ops = List.of(
                x -> () -> x.m().add(x.row()),
                x -> () -> sink[0] += x.a().plus(x.b()).getDouble(0),
                x -> () -> sink[0] += ArrayMath.sqrt(x.a()).getDouble(0),
                x -> () -> sink[0] += ArrayMath.exp(x.a()).getDouble(0),
                x -> () -> sink[0] += x.a().astype(F32.TYPE).getDouble(0),
                x -> () -> sink[0] += x.a().gt(0.5).getLong(0),
                x -> () -> sink[0] += Masks.where(x.mask(), x.a(), x.b()).getDouble(0),
                x -> () -> sink[0] += x.a().argmax(),
                x -> () -> sink[0] += x.a().cumsum().getDouble(0),
                x -> () -> sink[0] += x.m().sum(0).getDouble(0),
                x -> () -> sink[0] += x.a32().sorted().getDouble(0),
                x -> () -> sink[0] += x.a().sorted().getDouble(0));
            // not the sorts: ~100 ms a call, 10,000 calls on views would take minutes, and the code around them is a sliver of it
            boolean[] warmsPath = {true, true, true, true, true, true, true, true, true, true, false, false};
            Operands full = new Operands(a, b, m, row, mask, a32);
            Operands head = full.head();
            System.out.printf("%n%-56s %12s %12s %8s%n", "numpy habits (after views and " + WarmUp.CALLS + "+ warm-up calls)", "ours (ms)",
                    "numpy (ms)", "ratio");
            double worst = 0;
            try (NumpyPeer np = NumpyPeer.start("habits_bench.py", List.of(), List.of(a, b, m, row, mask, a32))) {
                for (int i = 0; i < ops.size(); i++) {
                    if (!OpsBenchmark.runs(rows[i][0])) {
                        continue;
                    }
                    double[] t = OpsBenchmark.alternate(ops.get(i).apply(full), warmsPath[i] ? ops.get(i).apply(head) : null, np, rows[i][1], runs,
                            dropsMapping[i]);
                    worst = Math.max(worst, t[0] / t[1]);
                    System.out.printf(Locale.ROOT, "%-56s %12.1f %12.1f %8.2f%n", rows[i][0], t[0], t[1], t[0] / t[1]);
                    OpsBenchmark.forParent(rows[i][0], t[0], t[1]);
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

    /** The arrays of the rows. */
    record Operands(SharedNDArray<F64> a, SharedNDArray<F64> b, SharedNDArray<F64> m, SharedNDArray<F64> row, SharedNDArray<Bool> mask,
            SharedNDArray<F32> a32) {
        /** Views of the first {@link WarmUp#PATH_ELEMENTS} elements (m: of as many in its first rows), for {@link WarmUp#path}. */
        Operands head() {
            long n = WarmUp.PATH_ELEMENTS;
            return new Operands(a.slice(0, 0, n, 1), b.slice(0, 0, n, 1), m.slice(0, 0, n / SIDE + 1, 1), row, mask.slice(0, 0, n, 1),
                    a32.slice(0, 0, n, 1));
        }
    }

    /**
     * The kernels on one thread and split over the cores (SharedArrays.withThreads), in rows of their
     * own, beside numpy's single thread: compute-bound rows should gain nearly a core's worth,
     * memory-bound ones at least not lose.
     */
    private static void multiCore(Operands full, int runs, double[] sink) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        String[][] rows = {
            {"exp(a) (16M f64)", "exp"}, {"sin(a) (16M f64)", "sin"}, {"sqrt(a) (16M f64)", "sqrt"},
            {"sorted copy (16M f64)", "sort"}, {"c = a + b (16M f64, new array)", "add"},
            {"a > 0.5 (16M f64, new bool array)", "gt"}, {"sum (16M f64)", "sum"},
        };
        List<Function<Operands, OpsBenchmark.Op>> ops = List.of(
            x -> () -> sink[0] += ArrayMath.exp(x.a()).getDouble(0),
            x -> () -> sink[0] += ArrayMath.sin(x.a()).getDouble(0),
            x -> () -> sink[0] += ArrayMath.sqrt(x.a()).getDouble(0),
            x -> () -> sink[0] += x.a().sorted().getDouble(0),
            x -> () -> sink[0] += x.a().plus(x.b()).getDouble(0),
            x -> () -> sink[0] += x.a().gt(0.5).getLong(0),
            x -> () -> sink[0] += x.a().sum());
        // the sorts: no calls on views and 5 warm-up calls (a heap sort of 16M takes seconds where the JDK's AVX-512 sort is missing)
        boolean[] sorts = {false, false, false, true, false, false, false};
        boolean[] drops = {true, true, true, false, true, true, false};
        Operands head = full.head();
        System.out.printf("%nmulti-core kernels: ours on 1 thread and on %d (SharedArrays.withThreads; SHARED_ARRAYS_THREADS does%n"
                + "the same for every call), numpy on its 1; speed-up = 1 thread / %d threads%n", cores, cores);
        System.out.printf("%-56s %10s %10s %9s %10s%n", "operation", "1 (ms)", cores + " (ms)", "speed-up", "numpy (ms)");
        try (NumpyPeer np = NumpyPeer.start("habits_bench.py", List.of(), List.of(full.a(), full.b(), full.m(), full.row(), full.mask(), full.a32()))) {
            for (int i = 0; i < rows.length; i++) {
                if (!OpsBenchmark.runs(rows[i][0])) {
                    continue;
                }
                OpsBenchmark.Op op = ops.get(i).apply(full);
                OpsBenchmark.Op onViews = sorts[i] ? null : ops.get(i).apply(head);
                double[] one = OpsBenchmark.alternate(op, onViews, np, rows[i][1], runs, drops[i]);
                double[] many = OpsBenchmark.alternate(() -> SharedArrays.withThreads(cores, () -> {
                    op.run();
                    return null;
                }), null, np, rows[i][1], runs, drops[i]);
                System.out.printf(Locale.ROOT, "%-56s %10.1f %10.1f %8.2fx %10.1f%n", rows[i][0], one[0], many[0], one[0] / many[0],
                        (one[1] + many[1]) / 2);
                OpsBenchmark.forParent(OpsRuns.THREADED + cores + " threads: " + rows[i][0], many[0], (one[1] + many[1]) / 2);
            }
        }
    }

    private static <T extends SharedNDArray<?>> T add(List<SharedNDArray<?>> all, T a) {
        all.add(a);
        return a;
    }
}
