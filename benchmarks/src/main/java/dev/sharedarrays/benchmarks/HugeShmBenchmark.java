package dev.sharedarrays.benchmarks;

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
 * reference. The arrays are files on each tmpfs (the same backend on both sides: what
 * {@code SHARED_ARRAYS_DIR} gives shm arrays), timed call by call alternating between the two
 * directories, so that the noise of a shared machine falls on both. Without {@code --dir}, as
 * root, it mounts
 * such a tmpfs for the run and unmounts it after. A program, not a test:
 * {@code bin/bench hugeshm [--gib 1] [--runs 7] [--rounds 3] [--dir DIR]}.
 */
public final class HugeShmBenchmark {
    private static final String[] OPS = {"sum", "iadd", "column", "create"};
    private static final String[] NAMES = {"sum", "a += b", "column sum (a as [n/512, 512], column 0: a 4 KiB stride)",
        "create + fill(2.0) + close of a third array"};
    /** Row length of the strided row: 512 f64 = 4 KiB, so each element of a column is on its own small page. */
    private static final int ROW = 512;

    private HugeShmBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        double gib = 1;
        int runs = 7;
        int rounds = 3;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--gib" -> gib = Double.parseDouble(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: HugeShmBenchmark [--gib 1] [--runs 7] [--rounds 3] [--dir DIR]");
                    System.exit(2);
                }
            }
        }
        long n = (long) (gib * (1L << 30)) / 8;
        Path mounted = null;
        if (dir == null) {
            mounted = Files.createTempDirectory("sa-huge-");
            long mib = 3 * n * 8 / (1 << 20) + 512; // a, b and the created one
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
        System.out.printf(Locale.ROOT, "shared-arrays huge-page shm: %s %s, %d cores; two f64 arrays of %.2f GiB per directory; "
                + "%d rounds of %d calls, the directories alternating call by call%n", System.getProperty("java.vm.name"),
                Runtime.version(), Runtime.getRuntime().availableProcessors(), gib, rounds, runs);
        System.out.println("4 KiB pages: " + small + " (" + mountOptions(small) + ")");
        System.out.println("huge pages:  " + huge + " (" + mountOptions(huge) + ")");
        long pid = ProcessHandle.current().pid();
        List<SharedNDArray<?>> all = new ArrayList<>();
        try {
            SharedNDArray<F64> a4 = create(all, small.resolve("sa-bench-4k-a-" + pid), n);
            SharedNDArray<F64> b4 = create(all, small.resolve("sa-bench-4k-b-" + pid), n);
            SharedNDArray<F64> ah = create(all, huge.resolve("sa-bench-huge-a-" + pid), n);
            SharedNDArray<F64> bh = create(all, huge.resolve("sa-bench-huge-b-" + pid), n);
            System.out.printf(Locale.ROOT, "mapped in 2 MiB pages (ShmemPmdMapped of a): 4 KiB dir %.0f MiB, huge dir %.0f MiB%n",
                    pmdMappedKiB(a4.path().orElseThrow()) / 1024.0, pmdMappedKiB(ah.path().orElseThrow()) / 1024.0);
            double[] sink = new double[1];
            Map<String, List<Double>> t = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < runs + 1; i++) {
                    boolean smallFirst = (i + round) % 2 == 0;
                    for (int k = 0; k < 2; k++) {
                        boolean isSmall = (k == 0) == smallFirst;
                        SharedNDArray<F64> a = isSmall ? a4 : ah;
                        SharedNDArray<F64> b = isSmall ? b4 : bh;
                        String side = isSmall ? "small" : "huge";
                        SharedNDArray<F64> column = a.reshape(n / ROW, ROW).slice(1, 0, 1, 1);
                        Path dir = isSmall ? small : huge;
                        long t0 = System.nanoTime();
                        sink[0] += a.sum();
                        long t1 = System.nanoTime();
                        a.add(b);
                        long t2 = System.nanoTime();
                        sink[0] += column.sum();
                        long t3 = System.nanoTime();
                        try (SharedNDArray<F64> c = SharedArrays.create(F64.TYPE, new long[] {n},
                                CreateOptions.defaults().file(dir.resolve("sa-bench-c-" + pid)).persistent(false))) {
                            c.fill(2.0); // tmpfs zeroes a page at its first touch, not at fallocate
                        }
                        long t4 = System.nanoTime();
                        if (i > 0) { // the first call of a round warms up
                            t.computeIfAbsent(side + ".sum", x -> new ArrayList<>()).add((t1 - t0) / 1e6);
                            t.computeIfAbsent(side + ".iadd", x -> new ArrayList<>()).add((t2 - t1) / 1e6);
                            t.computeIfAbsent(side + ".column", x -> new ArrayList<>()).add((t3 - t2) / 1e6);
                            t.computeIfAbsent(side + ".create", x -> new ArrayList<>()).add((t4 - t3) / 1e6);
                        }
                    }
                }
                String np = OpsBenchmark.run("hugeshm_bench.py", List.of(Integer.toString(runs)), List.of(a4, b4, ah, bh));
                for (String line : np.split("\n")) {
                    String[] f = line.strip().split(" ");
                    if (f.length == 2) {
                        t.computeIfAbsent(f[0], x -> new ArrayList<>()).add(Double.parseDouble(f[1]));
                    }
                }
            }
            System.out.printf("%n%-8s %-24s %-24s %8s %-24s %-24s %8s %-24s%n", "ms", "ours 4 KiB", "ours huge", "huge/4K",
                    "numpy 4 KiB", "numpy huge", "huge/4K", "numpy heap (THP)");
            for (int o = 0; o < OPS.length; o++) {
                String op = OPS[o];
                boolean np = t.containsKey("numpy_small." + op);
                System.out.printf(Locale.ROOT, "%s%n%-8s %-24s %-24s %8.2f %-24s %-24s %8s %-24s%n", NAMES[o], "", cell(t.get("small." + op)),
                        cell(t.get("huge." + op)), median(t.get("huge." + op)) / median(t.get("small." + op)),
                        np ? cell(t.get("numpy_small." + op)) : "-", np ? cell(t.get("numpy_huge." + op)) : "-",
                        np ? String.format(Locale.ROOT, "%.2f", median(t.get("numpy_huge." + op)) / median(t.get("numpy_small." + op))) : "-",
                        np ? cell(t.get("numpy_heap." + op)) : "-");
            }
            System.out.printf(Locale.ROOT, "(median (min-max); ours: all calls, numpy: medians of %d per round)%n", runs);
            System.out.printf(Locale.ROOT, "ours huge / numpy huge: sum %.2f, a += b %.2f, column %.2f; ours 4 KiB / numpy heap: sum %.2f,"
                    + " a += b %.2f, column %.2f; ours huge / numpy heap: sum %.2f, a += b %.2f, column %.2f%n",
                    ratio(t, "huge", "numpy_huge", "sum"), ratio(t, "huge", "numpy_huge", "iadd"), ratio(t, "huge", "numpy_huge", "column"),
                    ratio(t, "small", "numpy_heap", "sum"), ratio(t, "small", "numpy_heap", "iadd"), ratio(t, "small", "numpy_heap", "column"),
                    ratio(t, "huge", "numpy_heap", "sum"), ratio(t, "huge", "numpy_heap", "iadd"), ratio(t, "huge", "numpy_heap", "column"));
            if (sink[0] == 42) {
                System.out.println();
            }
        } finally {
            all.forEach(SharedNDArray::close);
        }
    }

    private static SharedNDArray<F64> create(List<SharedNDArray<?>> all, Path file, long n) {
        SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {n}, CreateOptions.defaults().file(file).persistent(false));
        all.add(a);
        a.fill(1e-9);
        return a;
    }

    private static double ratio(Map<String, List<Double>> t, String x, String y, String op) {
        return median(t.get(x + "." + op)) / median(t.get(y + "." + op));
    }

    private static String cell(List<Double> v) {
        double lo = v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double hi = v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", median(v), lo, hi);
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

    private static double median(List<Double> v) {
        return Stats.median(v.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
