package dev.sharedarrays.benchmarks;

import dev.sharedarrays.Backend;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Shared arrays in 4 KiB pages (/dev/shm here) against a tmpfs mounted {@code huge=within_size}
 * as {@code SHARED_ARRAYS_DIR}: sum and {@code a += b} over two arrays of {@code --gib} GiB each,
 * ours and numpy on the very same files, and numpy on its own heap (transparent huge pages) for
 * reference. Each directory is measured by a child JVM started with {@code SHARED_ARRAYS_DIR}
 * set, directories alternating from round to round. Without {@code --dir}, as root, it mounts
 * such a tmpfs for the run and unmounts it after. A program, not a test:
 * {@code bin/bench hugeshm [--gib 1] [--runs 7] [--rounds 3] [--dir DIR]}.
 */
public final class HugeShmBenchmark {
    private static final String[] OPS = {"sum", "iadd"};
    private static final String[] KEYS = {"ours", "numpy", "numpy_heap"};

    private HugeShmBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        double gib = 1;
        int runs = 7;
        int rounds = 3;
        Path dir = null;
        boolean measure = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--gib" -> gib = Double.parseDouble(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--measure" -> measure = true;
                default -> {
                    System.err.println("usage: HugeShmBenchmark [--gib 1] [--runs 7] [--rounds 3] [--dir DIR]");
                    System.exit(2);
                }
            }
        }
        long n = (long) (gib * (1L << 30)) / 8;
        if (measure) {
            measure(n, runs);
            return;
        }
        Path mounted = null;
        if (dir == null) {
            mounted = Files.createTempDirectory("sa-huge-");
            long mib = 2 * n * 8 / (1 << 20) + 512;
            int rc = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "huge=within_size,mode=0700,size=" + mib + "m", "tmpfs",
                    mounted.toString()).inheritIO().start().waitFor();
            if (rc != 0) {
                Files.delete(mounted);
                System.err.println("bin/bench hugeshm: could not mount a tmpfs (root needed); mount one with huge=within_size and "
                        + "pass it: bin/bench hugeshm --dir /mnt/sa-huge");
                System.exit(1);
            }
            dir = mounted;
        }
        try {
            run(dir, gib, n, runs, rounds);
        } finally {
            if (mounted != null) {
                new ProcessBuilder("umount", mounted.toString()).inheritIO().start().waitFor();
                Files.deleteIfExists(mounted);
            }
        }
    }

    private static void run(Path huge, double gib, long n, int runs, int rounds) throws Exception {
        Path small = SharedArrays.shmDirectory();
        System.out.printf(Locale.ROOT, "shared-arrays huge-page shm: %s %s, %d cores; two f64 arrays of %.2f GiB; median of %d runs, "
                + "%d rounds (directories alternating)%n", System.getProperty("java.vm.name"), Runtime.version(),
                Runtime.getRuntime().availableProcessors(), gib, runs, rounds);
        System.out.println("4 KiB pages: " + small + " (" + mountOptions(small) + ")");
        System.out.println("huge pages:  " + huge + " (" + mountOptions(huge) + ")");
        Map<String, List<Double>> all = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            Path[] order = round % 2 == 0 ? new Path[] {small, huge} : new Path[] {huge, small};
            for (Path d : order) {
                String side = d == small ? "small" : "huge";
                String out = child(d, gib, runs);
                for (String op : OPS) {
                    for (String key : KEYS) {
                        all.computeIfAbsent(side + "." + op + "." + key, k -> new ArrayList<>()).add(value(out, op + "." + key));
                    }
                }
                all.computeIfAbsent(side + ".pmd", k -> new ArrayList<>()).add(value(out, "pmd_mapped_mib"));
            }
        }
        System.out.printf("%n%-34s %18s %18s %18s %18s%n", "ms (min-max over rounds)", "ours 4 KiB", "ours huge", "numpy 4 KiB",
                "numpy huge");
        for (String op : OPS) {
            String name = op.equals("sum") ? "sum" : "a += b";
            System.out.printf(Locale.ROOT, "%-34s %18s %18s %18s %18s%n", name, range(all.get("small." + op + ".ours")),
                    range(all.get("huge." + op + ".ours")), range(all.get("small." + op + ".numpy")),
                    range(all.get("huge." + op + ".numpy")));
        }
        System.out.printf("%n%-34s %18s %18s %18s%n", "ratio of medians over rounds", "ours huge/4 KiB", "ours huge/numpy huge",
                "ours huge/numpy heap");
        for (String op : OPS) {
            String name = op.equals("sum") ? "sum" : "a += b";
            double h = median(all.get("huge." + op + ".ours"));
            double heap = median(concat(all.get("small." + op + ".numpy_heap"), all.get("huge." + op + ".numpy_heap")));
            System.out.printf(Locale.ROOT, "%-34s %18.2f %18.2f %18.2f%n", name, h / median(all.get("small." + op + ".ours")),
                    h / median(all.get("huge." + op + ".numpy")), h / heap);
        }
        System.out.printf(Locale.ROOT, "%nnumpy heap (its own copies, THP): sum %s ms, a += b %s ms%n",
                range(concat(all.get("small.sum.numpy_heap"), all.get("huge.sum.numpy_heap"))),
                range(concat(all.get("small.iadd.numpy_heap"), all.get("huge.iadd.numpy_heap"))));
        System.out.printf(Locale.ROOT, "mapped in 2 MiB pages (ShmemPmdMapped of array a): 4 KiB dir %s MiB, huge dir %s MiB%n",
                range(all.get("small.pmd")), range(all.get("huge.pmd")));
    }

    /** Measures in a child JVM whose SHARED_ARRAYS_DIR is dir; returns what it printed. */
    private static String child(Path dir, double gib, int runs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Xmx1g", "-cp",
                System.getProperty("java.class.path"), HugeShmBenchmark.class.getName(), "--measure", "--gib", Double.toString(gib),
                "--runs", Integer.toString(runs)));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("SHARED_ARRAYS_DIR", dir.toString());
        Process p = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start(); // stderr: the Vector API's incubator note
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException("measuring in " + dir + " failed: " + out);
        }
        return out;
    }

    /** The child: creates two arrays in SHARED_ARRAYS_DIR, times ours, then numpy on the same files and on its heap. */
    private static void measure(long n, int runs) throws Exception {
        CreateOptions shm = CreateOptions.defaults().backend(Backend.SHM);
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {n}, shm);
                SharedNDArray<F64> b = SharedArrays.create(F64.TYPE, new long[] {n}, shm)) {
            a.fill(1.0);
            b.fill(1e-9);
            double[] sink = new double[1];
            System.out.printf(Locale.ROOT, "sum.ours %.3f%n", OpsBenchmark.median(() -> sink[0] += a.sum(), runs));
            System.out.printf(Locale.ROOT, "iadd.ours %.3f%n", OpsBenchmark.median(() -> a.add(b), runs));
            System.out.printf(Locale.ROOT, "pmd_mapped_mib %.1f%n", pmdMappedKiB(a.path().orElseThrow()) / 1024.0);
            String np = OpsBenchmark.run("hugeshm_bench.py", List.of(Integer.toString(runs)), List.of(a, b));
            System.out.println(np);
            if (sink[0] == 42) {
                System.out.println();
            }
        }
    }

    /** ShmemPmdMapped + FilePmdMapped of this process's mappings of file, from /proc/self/smaps (KiB). */
    private static long pmdMappedKiB(Path file) throws IOException {
        long kib = 0;
        boolean in = false;
        // by inode: the mapping was made of the file under its temporary name, which smaps shows
        String inode = Files.getAttribute(file, "unix:ino").toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                String[] f = line.split("\\s+");
                in = f.length > 5 && f[4].equals(inode);
            } else if (in && (line.startsWith("ShmemPmdMapped:") || line.startsWith("FilePmdMapped:"))) {
                kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kib;
    }

    private static String mountOptions(Path dir) {
        try {
            String real = dir.toRealPath().toString();
            String best = "?";
            int bestLen = -1;
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 3 && (real.equals(f[1]) || real.startsWith(f[1].equals("/") ? "/" : f[1] + "/"))
                        && f[1].length() >= bestLen) {
                    best = f[2] + " " + f[3];
                    bestLen = f[1].length();
                }
            }
            return best;
        } catch (IOException e) {
            return "?";
        }
    }

    /** The number after "key " on a line of the child's output. */
    private static double value(String out, String key) {
        for (String line : out.split("\n")) {
            if (line.startsWith(key + " ")) {
                return Double.parseDouble(line.substring(key.length() + 1).strip());
            }
        }
        throw new IllegalStateException("no " + key + " in " + out);
    }

    private static List<Double> concat(List<Double> x, List<Double> y) {
        List<Double> r = new ArrayList<>(x);
        r.addAll(y);
        return r;
    }

    private static double median(List<Double> v) {
        double[] t = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(t);
        return t.length % 2 == 1 ? t[t.length / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    }

    private static String range(List<Double> v) {
        double lo = v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double hi = v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, "%.1f-%.1f", lo, hi);
    }
}
