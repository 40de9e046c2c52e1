package dev.sharedarrays.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/bench ops --runs 5}: the ops benchmark in that many JVMs, one after another, each
 * timing ours and numpy's calls in turn as a single run does; a row is judged by the median of its
 * runs' ratios, and the worst JVM's ratio and the range are printed beside it (a slow JVM is a
 * finding, not noise). Each child prints its own table as it goes, then its rows for this parent.
 */
final class OpsRuns {
    /** The prefix of the lines a child prints for its parent: name, ours (ms), numpy (ms). */
    static final String ROW = "ROW\t";
    /** The prefix of a multi-core row's name: printed, but not judged against numpy's single thread. */
    static final String THREADED = "[multi-core] ";

    private OpsRuns() {
    }

    static void run(int runs, List<String> childArgs) throws IOException, InterruptedException {
        Map<String, List<double[]>> rows = new LinkedHashMap<>();
        for (int r = 1; r <= runs; r++) {
            System.out.printf(Locale.ROOT, "=== JVM %d of %d%n", r, runs);
            for (String[] row : child(childArgs)) {
                rows.computeIfAbsent(row[0], k -> new ArrayList<>())
                        .add(new double[] {Double.parseDouble(row[1]), Double.parseDouble(row[2])});
            }
        }
        System.out.printf(Locale.ROOT, "%n%d JVMs: each row's ratio ours/numpy in each JVM (that JVM's medians), then their median,"
                + " range and worst%n%n", runs);
        System.out.printf("%-56s %10s %10s %8s %13s %7s%n", "operation", "ours (ms)", "numpy (ms)", "median", "range", "worst");
        double worstMedian = 0;
        double worstJvm = 0;
        for (Map.Entry<String, List<double[]>> e : rows.entrySet()) {
            List<double[]> v = e.getValue();
            double[] ours = v.stream().mapToDouble(x -> x[0]).toArray();
            double[] theirs = v.stream().mapToDouble(x -> x[1]).toArray();
            double[] ratios = v.stream().mapToDouble(x -> x[0] / x[1]).toArray();
            double lo = Double.MAX_VALUE;
            double hi = 0;
            for (double x : ratios) {
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
            double median = Stats.median(ratios);
            if (!e.getKey().startsWith(THREADED)) {
                worstMedian = Math.max(worstMedian, median);
                worstJvm = Math.max(worstJvm, hi);
            }
            System.out.printf(Locale.ROOT, "%-56s %10.1f %10.1f %8.2f %6.2f-%-6.2f %7.2f%n", e.getKey(), Stats.median(ours),
                    Stats.median(theirs), median, lo, hi, hi);
        }
        System.out.printf(Locale.ROOT, "%nsingle-thread rows: worst median %.2f (target <= 1.05), worst single JVM %.2f (target <= 1.15);"
                + " %s rows: ours on every core against numpy's one thread, not judged%n", worstMedian, worstJvm, THREADED.trim());
    }

    /** Runs one child JVM with this JVM's flags and class path; echoes its output; returns its rows. */
    private static List<String[]> child(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(OpsBenchmark.class.getName());
        cmd.addAll(args);
        cmd.add("--rows");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith(ROW)) {
                    rows.add(line.substring(ROW.length()).split("\t"));
                } else {
                    System.out.println(line);
                }
            }
        } finally {
            if (p.waitFor() != 0) {
                throw new IOException("an ops benchmark JVM exited with " + p.exitValue());
            }
        }
        return rows;
    }
}
