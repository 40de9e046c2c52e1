package dev.sharedarrays.benchmarks;

import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Create and attach of a 1 GiB f64 array, against Python's multiprocessing.shared_memory +
 * numpy measured in the same run, and the memory of 4 attached child JVMs (PSS from
 * /proc/pid/smaps_rollup). A program, not a test: {@code bin/bench attach [--gib 1] [--iterations 1000]}.
 */
public final class AttachBenchmark {
    private AttachBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args[1]);
            return;
        }
        double gib = 1;
        int iterations = 1000;
        int children = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--gib" -> gib = Double.parseDouble(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--children" -> children = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: AttachBenchmark [--gib 1] [--iterations 1000] [--children 4]");
                    System.exit(2);
                }
            }
        }
        long bytes = (long) (gib * (1L << 30));
        long n = bytes / 8;
        System.out.printf(Locale.ROOT, "shared-arrays attach benchmark: %.2f GiB f64 (%d elements), %d attaches, %s %s, %d cores%n%n",
                gib, n, iterations, System.getProperty("java.vm.name"), Runtime.version(), Runtime.getRuntime().availableProcessors());

        List<String[]> rows = new ArrayList<>();
        long t0 = System.nanoTime();
        SharedNDArray<F64> shm = SharedArrays.create(F64.TYPE, new long[] {n}, CreateOptions.defaults().backend(Backend.SHM));
        double shmCreate = (System.nanoTime() - t0) / 1e6;
        t0 = System.nanoTime();
        SharedNDArray<F64> memfd = SharedArrays.create(F64.TYPE, new long[] {n}, CreateOptions.defaults().backend(Backend.MEMFD));
        double memfdCreate = (System.nanoTime() - t0) / 1e6;
        try {
            shm.setDouble(0, 1.5);
            memfd.setDouble(0, 1.5);
            // warm both paths up first so that neither is measured while the JIT compiles it
            attachTimes(shm, 5000);
            attachTimes(memfd, 5000);
            double[] a = attachTimes(shm, iterations);
            double[] m = attachTimes(memfd, iterations);
            Python py = python(bytes, iterations, shm.path().orElseThrow());

            rows.add(row("shared-arrays shm: create (posix_fallocate)", shmCreate, Double.NaN, Double.NaN));
            rows.add(row("shared-arrays memfd: create (fallocate + seals)", memfdCreate, Double.NaN, Double.NaN));
            rows.add(row("python shared_memory: create (sparse ftruncate)", py.createMs, Double.NaN, Double.NaN));
            rows.add(row("shared-arrays shm: attach + first element", Double.NaN, a[0], a[1]));
            rows.add(row("shared-arrays memfd (/proc/pid/fd): attach + first element", Double.NaN, m[0], m[1]));
            rows.add(row("python SharedMemory(name) + np.ndarray + a[0]", Double.NaN, py.p50, py.p99));
            rows.add(row("python np.load(our segment, mmap_mode='r+') + a[0]", Double.NaN, py.npP50, py.npP99));
            System.out.printf("%-62s %12s %12s %12s%n", "operation", "time (ms)", "p50 (µs)", "p99 (µs)");
            for (String[] r : rows) {
                System.out.printf("%-62s %12s %12s %12s%n", (Object[]) r);
            }
            System.out.printf(Locale.ROOT, "%nattach p50 ratio shared-arrays shm / python shared_memory: %.2f (goal <= 1.00)%n", a[0] / py.p50);
            System.out.println("(python " + py.python + ", numpy " + py.numpy + ")");

            pss(shm, children);
        } finally {
            shm.close();
            memfd.close();
        }
    }

    private static String[] row(String name, double ms, double p50, double p99) {
        return new String[] {name, fmt(ms), fmt(p50), fmt(p99)};
    }

    private static String fmt(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** p50 and p99 in µs of attach + reading element 0; close is not timed. */
    private static double[] attachTimes(SharedNDArray<F64> array, int iterations) {
        String handle = array.handle().toString();
        double[] samples = new double[iterations];
        double check = 0;
        for (int i = -20; i < iterations; i++) {
            long t0 = System.nanoTime();
            SharedNDArray<?> b = SharedArrays.attach(handle);
            double x = b.getDouble(0);
            long t1 = System.nanoTime();
            check += x;
            b.close();
            if (i >= 0) {
                samples[i] = (t1 - t0) / 1000.0;
            }
        }
        if (check != 1.5 * (iterations + 20)) {
            throw new IllegalStateException("attach read wrong values");
        }
        Arrays.sort(samples);
        return new double[] {samples[iterations / 2], samples[Math.min(iterations - 1, iterations * 99 / 100)]};
    }

    private record Python(double createMs, double p50, double p99, double npP50, double npP99, String python, String numpy) {
    }

    private static Python python(long bytes, int iterations, Path ourSegment) throws IOException, InterruptedException {
        Path script = locate("benchmarks/python/shm_attach.py");
        Process p = new ProcessBuilder("python3", script.toString(), Long.toString(bytes), Integer.toString(iterations),
                ourSegment.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("python3 " + script + " failed: " + out);
        }
        return new Python(num(out, "create_ms"), num(out, "attach_p50_us"), num(out, "attach_p99_us"),
                num(out, "npload_p50_us"), num(out, "npload_p99_us"), str(out, "python"), str(out, "numpy"));
    }

    static Path locate(String relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new IllegalStateException("cannot find " + relative + " above " + Path.of("").toAbsolutePath());
    }

    private static double num(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": ([0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + key + " in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    private static String str(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": \"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : "?";
    }

    /** Touches every page in this and in `children` attached JVMs, then sums their PSS. */
    private static void pss(SharedNDArray<F64> array, int children) throws IOException, InterruptedException {
        MemorySegment data = array.data();
        for (long off = 0; off < data.byteSize(); off += 4096) {
            data.set(ValueLayout.JAVA_DOUBLE, off, 1.0);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> procs = new ArrayList<>();
        try {
            for (int i = 0; i < children; i++) {
                procs.add(new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp",
                        System.getProperty("java.class.path"), AttachBenchmark.class.getName(), "--child", array.handle().toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            for (Process p : procs) {
                String line = new BufferedReader(new InputStreamReader(p.getInputStream())).readLine();
                if (line == null || !line.startsWith("READY")) {
                    throw new IllegalStateException("child " + p.pid() + " did not attach: " + line);
                }
            }
            System.out.printf("%n%d child JVMs attached the %s array and read every page:%n", children, Config.bytes(data.byteSize()));
            System.out.printf("%-22s %12s %12s %14s%n", "process", "RSS", "PSS", "PSS of shmem");
            long[] total = new long[3];
            List<Long> pids = new ArrayList<>();
            pids.add(ProcessHandle.current().pid());
            procs.forEach(p -> pids.add(p.pid()));
            for (int i = 0; i < pids.size(); i++) {
                long[] v = smapsRollup(pids.get(i));
                for (int k = 0; k < 3; k++) {
                    total[k] += v[k];
                }
                System.out.printf("%-22s %12s %12s %14s%n", (i == 0 ? "parent " : "child ") + pids.get(i),
                        Config.bytes(v[0]), Config.bytes(v[1]), v[2] < 0 ? "n/a" : Config.bytes(v[2]));
            }
            System.out.printf("%-22s %12s %12s %14s%n", "total", Config.bytes(total[0]), Config.bytes(total[1]), Config.bytes(total[2]));
            System.out.printf("one copy per process would be %s of array data alone%n", Config.bytes(data.byteSize() * (children + 1)));
        } finally {
            for (Process p : procs) {
                p.getOutputStream().close();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** Rss, Pss and Pss_Shmem in bytes (Pss_Shmem -1 where the kernel does not report it). */
    private static long[] smapsRollup(long pid) throws IOException {
        long[] v = {0, 0, -1};
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 2) {
                continue;
            }
            switch (f[0]) {
                case "Rss:" -> v[0] = Long.parseLong(f[1]) * 1024;
                case "Pss:" -> v[1] = Long.parseLong(f[1]) * 1024;
                case "Pss_Shmem:" -> v[2] = Long.parseLong(f[1]) * 1024;
                default -> { }
            }
        }
        return v;
    }

    private static void child(String handle) throws IOException {
        try (SharedNDArray<F64> a = SharedArrays.attach(dev.sharedarrays.ArrayHandle.parse(handle), F64.TYPE)) {
            MemorySegment data = a.data();
            double sum = 0;
            for (long off = 0; off < data.byteSize(); off += 4096) {
                sum += data.get(ValueLayout.JAVA_DOUBLE, off);
            }
            System.out.println("READY " + sum);
            System.out.flush();
            System.in.read(); // until the parent closes our stdin
        }
    }

    /** Sizes as the library prints them. */
    private static final class Config {
        static String bytes(long n) {
            return String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0);
        }
    }
}
