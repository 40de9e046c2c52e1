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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * What an out-of-place temporary costs call after call: each op runs {@code --calls} times in a
 * row, its result kept in a variable until the next call replaces it (numpy's {@code c = a + b}
 * in a loop), and the table prints the 50th and 90th percentile of those calls against numpy
 * doing the same on the same shared data right before (a python3 kept running, asked op by op).
 * A second series closes each result before the next call (explicit reuse). Each series warms up
 * with {@code --warmups} calls, those with results dropped also until the library has asked for two collections
 * ({@link WarmUp}). A program, not a test:
 * {@code bin/bench temporaries [--calls 30] [--warmups 5] [--rounds 1]}.
 */
public final class TemporariesBenchmark {
    static final long N = 16_000_000;

    private TemporariesBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int calls = 30;
        int warmups = 5;
        int rounds = 1;
        boolean samples = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--warmups" -> warmups = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--samples" -> samples = true;
                default -> {
                    System.err.println("usage: TemporariesBenchmark [--calls 30] [--warmups 5] [--rounds 1] [--samples]");
                    System.exit(2);
                }
            }
        }
        System.out.printf(Locale.ROOT, "shared-arrays temporaries: %s %s, %d cores, %d consecutive calls per op after %d warm-up calls (dropped: and two collections)%n",
                System.getProperty("java.vm.name"), Runtime.version(), Runtime.getRuntime().availableProcessors(), calls, warmups);
        CreateOptions shm = CreateOptions.defaults().backend(Backend.SHM);
        List<SharedNDArray<?>> all = new ArrayList<>();
        try {
            SharedNDArray<F64> a = add(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SharedNDArray<F64> b = add(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SplittableRandom rnd = new SplittableRandom(11);
            for (SharedNDArray<F64> x : List.of(a, b)) {
                for (long i = 0; i < x.size(); i++) {
                    x.data().setAtIndex(ValueLayout.JAVA_DOUBLE, i, rnd.nextDouble());
                }
            }
            SharedNDArray<Bool> mask = add(all, a.gt(0.5).share(shm));
            String[][] rows = {
                {"c = a + b (16M f64)", "add"},
                {"c = a * 2.0 (16M f64)", "mul"},
                {"sqrt(a) (16M f64)", "sqrt"},
                {"a.astype(F32) (16M f64)", "astype_f32"},
                {"where(mask, a, b) (16M f64)", "where"},
                {"a > 0.5 (16M f64, new bool array)", "gt"},
                {"cumsum (16M f64)", "cumsum"},
                {"a.copy() (16M f64)", "copy"},
            };
            List<Supplier<SharedNDArray<?>>> ops = List.of(
                    () -> a.plus(b),
                    () -> a.times(2.0),
                    () -> ArrayMath.sqrt(a),
                    () -> a.astype(F32.TYPE),
                    () -> Masks.where(mask, a, b),
                    () -> a.gt(0.5),
                    () -> a.cumsum(),
                    () -> a.copy());
            NumpyPeer np = NumpyPeer.start("temporaries_bench.py", List.of(Integer.toString(calls), Integer.toString(warmups)),
                    List.of(a, b, mask));
            try {
                for (int round = 0; round < rounds; round++) {
                    System.out.printf("%n%-36s %22s %22s %22s %16s%n", "", "results dropped", "results closed", "numpy",
                            "p90 / numpy p90");
                    System.out.printf("%-36s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s%n", "op (round " + (round + 1) + ", ms)", "p50",
                            "p90", "max", "p50", "p90", "max", "p50", "p90", "max", "dropped", "closed");
                    double worst = 0;
                    double worstClosed = 0;
                    for (int i = 0; i < ops.size(); i++) {
                        // numpy, then ours: each op's three series close together in time
                        double[] theirs = np.times(rows[i][1]);
                        double[] ours = times(ops.get(i), calls, warmups, false);
                        double[] closed = times(ops.get(i), calls, warmups, true);
                        if (samples) {
                            System.out.printf(Locale.ROOT, "  %s, in call order%n    dropped %s%n    closed  %s%n    numpy   %s%n", rows[i][0],
                                    Stats.calls(ours), Stats.calls(closed), Stats.calls(theirs));
                        }
                        Arrays.sort(theirs);
                        Arrays.sort(ours);
                        Arrays.sort(closed);
                        double ratio = pct(ours, 90) / pct(theirs, 90);
                        double ratioClosed = pct(closed, 90) / pct(theirs, 90);
                        worst = Math.max(worst, ratio);
                        worstClosed = Math.max(worstClosed, ratioClosed);
                        System.out.printf(Locale.ROOT, "%-36s %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %8.2f %8.2f%n",
                                rows[i][0], pct(ours, 50), pct(ours, 90), max(ours), pct(closed, 50), pct(closed, 90), max(closed),
                                pct(theirs, 50), pct(theirs, 90), max(theirs), ratio, ratioClosed);
                    }
                    System.out.printf(Locale.ROOT, "worst p90 ratio ours/numpy: %.2f with results dropped, %.2f closed (numpy %s)%n",
                            worst, worstClosed, np.version());
                }
            } finally {
                np.close();
            }
        } finally {
            all.forEach(SharedNDArray::close);
        }
    }

    /**
     * Ms of {@code calls} consecutive calls, in call order, each result held until the next call
     * replaces (or closes) it, after {@code warmups} calls, and with results dropped, after the library
     * has asked for two collections ({@link WarmUp}): the steady state of a loop.
     */
    private static double[] times(Supplier<SharedNDArray<?>> op, int calls, int warmups, boolean close) {
        SharedNDArray<?>[] c = {null};
        WarmUp.run(() -> {
            if (close && c[0] != null) {
                c[0].close();
            }
            c[0] = op.get();
        }, warmups, !close);
        double[] t = new double[calls];
        for (int i = 0; i < calls; i++) {
            if (close && c[0] != null) {
                c[0].close();
            }
            long t0 = System.nanoTime();
            c[0] = op.get();
            long t1 = System.nanoTime();
            t[i] = (t1 - t0) / 1e6;
        }
        if (close && c[0] != null) {
            c[0].close();
        }
        return t;
    }

    private static double max(double[] sorted) {
        return sorted[sorted.length - 1];
    }

    /** The p-th percentile of sorted samples, nearest rank (p90 of 30 calls is the 27th). */
    static double pct(double[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static <T extends SharedNDArray<?>> T add(List<SharedNDArray<?>> all, T a) {
        all.add(a);
        return a;
    }
}
