package dev.sharedarrays.benchmarks;

import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.I32;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * The typed-array kernels against numpy on the same data: 64M-element f64 and i32 arrays, every
 * other column of an 8192 x 8192 f64 array, and a plain copy of 512 MiB as the memory-bandwidth
 * reference. numpy runs on the very same shared segments (and, for context, on heap copies), in a
 * python3 kept running: each row's calls alternate, one of ours then one of numpy's, so that both
 * medians come from the same seconds of the machine's memory bandwidth.
 * A program, not a test: {@code bin/bench ops [--calls 7] [--runs 1] [--samples] [--only TEXT]}: --runs N runs it in N JVMs
 * ({@link OpsRuns}); --only runs just the rows whose name contains TEXT.
 */
public final class OpsBenchmark {
    private static final long N = 64L << 20;
    private static final int SIDE = 8192;
    /** --samples: every timed call is printed under its row. */
    static boolean samples;
    /** --rows: each row is also printed for a parent {@link OpsRuns}. */
    static boolean rowsForParent;
    /** --only: the text a row's name must contain to run ("": every row). */
    static String only = "";

    private OpsBenchmark() {
    }

    interface Op {
        void run();
    }

    public static void main(String[] args) throws Exception {
        int runs = 7;
        int jvms = 1;
        boolean multiCoreOnly = false;
        List<String> childArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--calls")) {
                runs = Integer.parseInt(args[++i]);
                childArgs.addAll(List.of("--calls", args[i]));
            } else if (args[i].equals("--runs")) {
                jvms = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--samples")) {
                samples = true;
                childArgs.add("--samples");
            } else if (args[i].equals("--multi-core")) {
                multiCoreOnly = true;
                childArgs.add("--multi-core");
            } else if (args[i].equals("--only")) {
                only = args[++i];
                childArgs.addAll(List.of("--only", args[i]));
            } else if (args[i].equals("--rows")) {
                rowsForParent = true;
            } else {
                System.err.println("usage: OpsBenchmark [--calls 7] [--runs 1] [--samples] [--multi-core] [--only TEXT]");
                System.exit(2);
            }
        }
        if (jvms > 1) {
            OpsRuns.run(jvms, childArgs);
            return;
        }
        if (multiCoreOnly) {
            NumpyHabitsRows.run(runs, true);
            return;
        }
        boolean simd = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        System.out.printf(Locale.ROOT, "shared-arrays ops benchmark: %s %s, %d cores, SIMD loops %s, median of %d calls on each side, ours and numpy's in turn"
                + " (ours after %,d calls on views of %,d elements: C2 compiles the code around the kernels, as in a program that runs them often)%n%n",
                System.getProperty("java.vm.name"), Runtime.version(), Runtime.getRuntime().availableProcessors(),
                simd ? "on (--add-modules jdk.incubator.vector)" : "off", runs, WarmUp.PATH_CALLS, WarmUp.PATH_ELEMENTS);
        CreateOptions shm = CreateOptions.defaults().backend(Backend.SHM);
        List<SharedNDArray<?>> all = new ArrayList<>();
        try {
            SharedNDArray<F64> a = track(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SharedNDArray<F64> b = track(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SharedNDArray<I32> ia = track(all, SharedArrays.create(I32.TYPE, new long[] {N}, shm));
            SharedNDArray<I32> ib = track(all, SharedArrays.create(I32.TYPE, new long[] {N}, shm));
            SharedNDArray<F64> m = track(all, SharedArrays.create(F64.TYPE, new long[] {SIDE, SIDE}, shm));
            SharedNDArray<F64> c = track(all, SharedArrays.create(F64.TYPE, new long[] {N}, shm));
            SplittableRandom rnd = new SplittableRandom(42);
            fill(a.data(), rnd, false);
            fill(b.data(), rnd, false);
            fill(ia.data(), rnd, true);
            fill(ib.data(), rnd, true);
            fill(m.data(), rnd, false);

            Operands full = new Operands(a, b, ia, ib, m.slice(1, 0, SIDE, 2), c);
            Operands head = full.head();
            double[] sink = new double[1];
            String[][] rows = {
                {"f64 a += b", "f64_iadd"}, {"f64 a *= 2.5", "f64_imul"}, {"f64 sum", "f64_sum"}, {"f64 min", "f64_min"},
                {"f64 max", "f64_max"}, {"i32 a += b", "i32_iadd"}, {"i32 sum", "i32_sum"},
                {"strided f64 (every other column of 8192x8192) sum", "strided_sum"},
                {"strided f64 (every other column of 8192x8192) += 1.0", "strided_iadd"},
                {"bulk copy of 512 MiB (bandwidth reference)", "copy"},
            };
            List<Function<Operands, Op>> ops = List.of(
                x -> () -> x.a().add(x.b()),
                x -> () -> {
                    x.a().mul(2.5);
                    x.a().mul(0.4);
                },
                x -> () -> sink[0] += x.a().sum(),
                x -> () -> sink[0] += x.a().minAsDouble(),
                x -> () -> sink[0] += x.a().maxAsDouble(),
                x -> () -> x.ia().add(x.ib()),
                x -> () -> sink[0] += x.ia().sum(),
                x -> () -> sink[0] += x.v().sum(),
                x -> () -> x.v().add(1.0),
                x -> () -> x.c().copyFrom(x.a()));
            System.out.printf("%-56s %12s %12s %8s %14s%n", "operation (64M elements unless said)", "ours (ms)", "numpy (ms)", "ratio",
                    "numpy heap (ms)");
            double worst = 0;
            String version;
            try (NumpyPeer np = NumpyPeer.start("ops_bench.py", List.of(), List.of(a, b, ia, ib, m, c))) {
                version = np.version();
                for (int i = 0; i < ops.size(); i++) {
                    if (!runs(rows[i][0])) {
                        continue;
                    }
                    int calls = i == 1 ? 2 : 1; // a *= 2.5 is timed with the a *= 0.4 that keeps values bounded
                    double[] t = alternate(ops.get(i).apply(full), ops.get(i).apply(head), np, rows[i][1], runs, false);
                    double ours = t[0] / calls;
                    double theirs = t[1] / calls;
                    double[] heap = np.times("heap." + rows[i][1] + " " + (runs + 1));
                    double ratio = ours / theirs;
                    worst = Math.max(worst, ratio);
                    System.out.printf(Locale.ROOT, "%-56s %12.1f %12.1f %8.2f %14.1f%n", rows[i][0], ours, theirs, ratio,
                            Stats.median(Arrays.copyOfRange(heap, 1, heap.length)) / calls);
                    forParent(rows[i][0], ours, theirs);
                }
            }
            System.out.printf(Locale.ROOT, "%nworst ratio ours/numpy (same shared memory): %.2f; numpy %s%n", worst, version);
            System.out.println("(numpy heap: numpy on its own heap copies, which may use transparent huge pages; shared memory cannot here)");
            if (sink[0] == 42) {
                System.out.println();
            }
        } finally {
            all.forEach(SharedNDArray::close);
        }
        NumpyHabitsRows.run(runs, false);
    }

    /** Whether --only lets the row of that name run. */
    static boolean runs(String name) {
        return name.contains(only);
    }

    /** A row for a parent {@link OpsRuns}, if there is one. */
    static void forParent(String name, double ours, double theirs) {
        if (rowsForParent) {
            System.out.printf(Locale.ROOT, "%s%s\t%.4f\t%.4f%n", OpsRuns.ROW, name, ours, theirs);
        }
    }

    /** The arrays of the rows: v is every other column of m. */
    record Operands(SharedNDArray<F64> a, SharedNDArray<F64> b, SharedNDArray<I32> ia, SharedNDArray<I32> ib, SharedNDArray<F64> v,
                    SharedNDArray<F64> c) {
        /** Views of the first {@link WarmUp#PATH_ELEMENTS} elements (v: of as many in its first rows), for {@link WarmUp#path}. */
        Operands head() {
            long n = WarmUp.PATH_ELEMENTS;
            return new Operands(a.slice(0, 0, n, 1), b.slice(0, 0, n, 1), ia.slice(0, 0, n, 1), ib.slice(0, 0, n, 1),
                    v.slice(0, 0, n / v.shape()[1] + 1, 1), c.slice(0, 0, n, 1));
        }
    }

    private static <T extends SharedNDArray<?>> T track(List<SharedNDArray<?>> all, T a) {
        all.add(a);
        return a;
    }

    private static void fill(MemorySegment s, SplittableRandom rnd, boolean ints) {
        if (ints) {
            for (long i = 0; i < s.byteSize() / 4; i++) {
                s.setAtIndex(ValueLayout.JAVA_INT, i, rnd.nextInt(-1000, 1000));
            }
        } else {
            for (long i = 0; i < s.byteSize() / 8; i++) {
                s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, rnd.nextDouble());
            }
        }
    }

    /**
     * Medians of {@code runs} calls of ours and as many of numpy's {@code key}, taken in turn after
     * the same number of warm-up calls on each side (JIT, page tables, and if {@code dropsMappings}
     * a steady state of freed results: {@link WarmUp}); ours after {@code onViews}, the same
     * operation on views, has run {@link WarmUp#path} (null: none).
     */
    static double[] alternate(Op op, Op onViews, NumpyPeer np, String key, int runs, boolean dropsMappings) throws IOException {
        if (onViews != null) {
            WarmUp.path(onViews::run);
        }
        int warmups = WarmUp.run(op::run, WarmUp.CALLS, dropsMappings);
        np.times(key + " " + warmups);
        double[] ours = new double[runs];
        double[] theirs = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            op.run();
            ours[i] = (System.nanoTime() - t0) / 1e6;
            theirs[i] = np.times(key + " 1")[0];
        }
        if (samples) {
            System.out.printf(Locale.ROOT, "  %s, every call (ms): ours %s, numpy %s%n", key, Stats.calls(ours), Stats.calls(theirs));
        }
        return new double[] {Stats.median(ours), Stats.median(theirs)};
    }

    /** Runs benchmarks/python/{@code name} with {@code args}, then the arrays' paths; returns what it printed. */
    static String run(String name, List<String> args, List<SharedNDArray<?>> arrays) throws IOException, InterruptedException {
        Path script = script(name);
        List<String> cmd = new ArrayList<>(List.of("python3", script.toString()));
        cmd.addAll(args);
        arrays.forEach(x -> cmd.add(x.path().orElseThrow().toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("python3 " + script + " failed: " + out);
        }
        return out;
    }

    /** benchmarks/python/{@code name}, found from the working directory up. */
    static Path script(String name) {
        Path script = null;
        for (Path dir = Path.of("").toAbsolutePath(); dir != null && script == null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("benchmarks/python/" + name))) {
                script = dir.resolve("benchmarks/python/" + name);
            }
        }
        if (script == null) {
            throw new IllegalStateException("cannot find benchmarks/python/" + name + " above " + Path.of("").toAbsolutePath());
        }
        return script;
    }
}
