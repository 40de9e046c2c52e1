package dev.sharedarrays.benchmarks;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedNDArray;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Round trips of one pool slot between this JVM and a Python process (the {@code sharedarrays}
 * package), and in Python alone: through our queue, torch.multiprocessing's queue of a
 * share_memory_() tensor, and a Ray actor passed an ObjectRef, in one run and one table
 * (benchmarks/python/slot_roundtrip.py is the Python side).
 *
 * <pre>bin/bench python [--sizes-mb 1,10,100,1000] [--iterations 1000] [--python-seconds 10]</pre>
 *
 * bin/bench passes {@code --python} (python/ensure-env's interpreter) and {@code --torch-python}
 * (python/ensure-torch --with-ray's, or the same one when torch could not be installed).
 */
public final class PythonBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Within the Python side's spin (about 75 µs), and long after it: it sleeps on the futex. */
    private static final long[] PACES_NS = {20_000L, 1_000_000L};
    private static final int PACED_TRIPS = 1000;

    private PythonBenchmark() {
    }

    private record Row(String kind, int mb, int n, double p50, double p99, String versions) {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {1, 10, 100, 1000};
        int iterations = 1000;
        double pythonSeconds = 10;
        String python = "python3";
        String torchPython = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes-mb" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--python-seconds" -> pythonSeconds = Double.parseDouble(args[++i]);
                case "--python" -> python = args[++i];
                case "--torch-python" -> torchPython = args[++i];
                default -> {
                    System.err.println("usage: bin/bench python [--sizes-mb 1,10,100,1000] [--iterations 1000] [--python-seconds 10]");
                    System.exit(2);
                }
            }
        }
        System.out.printf("shared-arrays python benchmark: %s %s, %d cores%n%n", System.getProperty("java.vm.name"),
                Runtime.version(), Runtime.getRuntime().availableProcessors());
        Path script = AttachBenchmark.locate("benchmarks/python/slot_roundtrip.py");
        double[][] paced = new double[PACES_NS.length][];
        double[][] jvm = jvmPythonJvm(script, python, sizes, iterations, paced);
        List<Row> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        String sizeList = String.join(",", Arrays.stream(sizes).mapToObj(Integer::toString).toList());
        python(script, python, "sa", sizeList, iterations, pythonSeconds, rows, notes);
        python(script, torchPython == null ? python : torchPython, "torch,ray", sizeList, iterations, pythonSeconds, rows, notes);

        System.out.printf("round trip of one f64 (N, 128, 128, 8) = N MiB array, p50 / p99 in µs: the sender stamps the clock, sends,%n"
                + "the other process receives, reads element 0 and sends it back, the sender's receive returns.%n"
                + "Ours: a slot of a 2-slot pool through queue q1 and back on q2 (JVM: %,d trips after >= %d and >= 2 s of%n"
                + "warm-up, until its JIT was quiet for 1 s; Python: up to %,d trips or --python-seconds per size). torch: a share_memory_() tensor through%n"
                + "torch.multiprocessing queues. Ray: an ObjectRef to an actor that reads the array and returns the ref.%n%n",
                iterations, QueueBenchmark.ROUND_TRIP_WARMUP, iterations);
        System.out.printf("%6s %21s %21s %21s %21s %12s%n", "MiB", "JVM->Python->JVM", "Python->Python (ours)",
                "torch.mp tensor", "Ray actor ObjectRef", "torch/JVM-Py");
        for (int k = 0; k < sizes.length; k++) {
            Row sa = find(rows, "sa", sizes[k]);
            Row torch = find(rows, "torch", sizes[k]);
            Row ray = find(rows, "ray", sizes[k]);
            System.out.printf("%6d %21s %21s %21s %21s %12s%n", sizes[k], cell(jvm[k][0], jvm[k][1]), cell(sa), cell(torch), cell(ray),
                    torch == null ? "" : String.format(Locale.ROOT, "%.1fx", torch.p50() / jvm[k][0]));
        }
        System.out.printf("%nJVM->Python->JVM of a %d MiB slot with a pause before each trip (%,d trips each): the Python side%n"
                + "spins up to 50 µs in C (sharedarrays._futex.SPIN_NANOS; past 10 µs it yields the core between looks),%n"
                + "then sleeps on the futex%n",
                sizes[0], PACED_TRIPS);
        for (int j = 0; j < PACES_NS.length; j++) {
            System.out.printf("   pause %-8s p50 / p99 %21s µs%n", PACES_NS[j] >= 1_000_000 ? PACES_NS[j] / 1_000_000 + " ms" : PACES_NS[j] / 1000 + " µs",
                    cell(paced[j][0], paced[j][1]));
        }
        rows.stream().map(Row::versions).distinct().forEach(v -> System.out.println("(" + v + ")"));
        notes.forEach(System.out::println);

        double worst = Arrays.stream(jvm).mapToDouble(t -> t[0]).max().orElse(Double.NaN);
        double worstRatio = Double.POSITIVE_INFINITY;
        for (int k = 0; k < sizes.length; k++) {
            Row torch = find(rows, "torch", sizes[k]);
            worstRatio = Math.min(worstRatio, torch == null ? Double.NaN : torch.p50() / jvm[k][0]);
        }
        System.out.println("\ngoals");
        double worstPy = rows.stream().filter(r -> r.kind().equals("sa")).mapToDouble(Row::p50).max().orElse(Double.NaN);
        goal("JVM->Python->JVM p50 <= 8 µs at every size", worst <= 8, "worst p50 " + us(worst) + " µs");
        goal("Python->Python p50 <= 12 µs at every size", worstPy <= 12, "worst p50 " + us(worstPy) + " µs");
        goal(">= 20x under torch's p50 at every size", worstRatio >= 20,
                Double.isNaN(worstRatio) ? "torch not measured" : String.format(Locale.ROOT, "smallest ratio %.1fx", worstRatio));
    }

    /** {p50, p99} in µs per size: we send a slot on q1, the Python echo sends it back on q2. */
    private static double[][] jvmPythonJvm(Path script, String python, int[] sizesMb, int iterations, double[][] paced)
            throws IOException, InterruptedException {
        double[][] result = new double[sizesMb.length][];
        try (ArrayQueue q1 = ArrayQueue.create(2); ArrayQueue q2 = ArrayQueue.create(2)) {
            Process echo = new ProcessBuilder(python, script.toString(), "echo", q1.handle().toString(), q2.handle().toString())
                    .inheritIO().start();
            try {
                for (int k = 0; k < sizesMb.length; k++) {
                    try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, sizesMb[k], 128, 128, 8)) {
                        // as long as the JIT works, the two ends may share a core (QueueBenchmark.warmUp)
                        QueueBenchmark.warmUp(pool, q1, q2);
                        long[] ns = new long[iterations];
                        for (int i = 0; i < iterations; i++) {
                            ns[i] = QueueBenchmark.trip(pool, q1, q2, i);
                        }
                        Arrays.sort(ns);
                        result[k] = new double[] {rank(ns, 50) / 1e3, rank(ns, 99) / 1e3};
                        for (int j = 0; k == 0 && j < PACES_NS.length; j++) {
                            long[] pns = new long[PACED_TRIPS];
                            for (int i = 0; i < PACED_TRIPS; i++) {
                                pause(PACES_NS[j]);
                                pns[i] = QueueBenchmark.trip(pool, q1, q2, i);
                            }
                            Arrays.sort(pns);
                            paced[j] = new double[] {rank(pns, 50) / 1e3, rank(pns, 99) / 1e3};
                        }
                    }
                }
                q1.end();
                if (!echo.waitFor(60, TimeUnit.SECONDS) || echo.exitValue() != 0) {
                    throw new IllegalStateException("the Python echo did not end well");
                }
            } finally {
                echo.destroyForcibly();
            }
        }
        return result;
    }

    private static void pause(long ns) {
        if (ns >= 1_000_000) {
            LockSupport.parkNanos(ns);
            return;
        }
        for (long end = System.nanoTime() + ns; System.nanoTime() < end; ) {
            Thread.onSpinWait();
        }
    }

    private static long rank(long[] sorted, int p) {
        return sorted[Math.max(0, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    /** Runs slot_roundtrip.py bench for {@code cases}; its rows go to {@code rows}, skipped cases to {@code notes}. */
    private static void python(Path script, String python, String cases, String sizes, int iterations, double seconds,
                               List<Row> rows, List<String> notes) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(python, script.toString(), "bench", "--cases", cases, "--sizes-mb", sizes,
                    "--iterations", Integer.toString(iterations), "--max-seconds", Double.toString(seconds))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (!line.startsWith("{")) {
                        continue;
                    }
                    String kind = field(line, "case");
                    String skipped = field(line, "skipped");
                    if (skipped != null) {
                        notes.add(kind + ": skipped (" + skipped + ")");
                        continue;
                    }
                    String extra = switch (kind) {
                        case "torch" -> ", torch " + field(line, "torch");
                        case "ray" -> ", ray " + field(line, "ray");
                        default -> "";
                    };
                    rows.add(new Row(kind, Integer.parseInt(field(line, "mb")), Integer.parseInt(field(line, "n")),
                            Double.parseDouble(field(line, "p50_us")), Double.parseDouble(field(line, "p99_us")),
                            "python " + field(line, "python") + ", numpy " + field(line, "numpy") + extra));
                }
            }
            if (p.waitFor() != 0) {
                notes.add(cases + ": " + python + " " + script + " exited with " + p.exitValue());
            }
        } catch (IOException | RuntimeException e) {
            notes.add(cases + ": no figures (" + e.getMessage() + ")");
        }
    }

    private static String field(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": \"?([^,\"}]*)").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    private static Row find(List<Row> rows, String kind, int mb) {
        return rows.stream().filter(r -> r.kind().equals(kind) && r.mb() == mb).findFirst().orElse(null);
    }

    private static String cell(Row r) {
        return r == null ? "-" : cell(r.p50(), r.p99());
    }

    private static String cell(double p50, double p99) {
        return us(p50) + " / " + us(p99);
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, v < 100 ? "%.1f" : "%,.0f", v);
    }

    private static void goal(String what, boolean met, String detail) {
        System.out.printf("  [%s] %s: %s%n", met ? "met" : "NOT met", what, detail);
    }
}
