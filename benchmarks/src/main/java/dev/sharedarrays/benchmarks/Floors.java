package dev.sharedarrays.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The machine's floors for a hand-off between two processes, from {@code benchmarks/native/floors.c}
 * (bin/bench queue compiles it): a cache line bounced by two spinning processes, a futex round trip,
 * a futex wake-up one way from a busy process after 1 ms, and a futex round trip after 1, 10 and 100 ms
 * of silence; printed beside our round trips and one-way latencies.
 */
final class Floors {
    private Floors() {
    }

    /** name -> {p50 ns, p99 ns, count}; empty (and a line saying why) without the program. */
    static Map<String, long[]> measure(String program) throws InterruptedException {
        Map<String, long[]> out = new LinkedHashMap<>();
        if (program == null) {
            System.out.println("floors: not measured (no C compiler found by bin/bench, or no --floors PROGRAM)\n");
            return out;
        }
        try {
            Process p = new ProcessBuilder(program, "20000", "1,10,100").redirectErrorStream(true).start();
            readLines(p, out);
            p.waitFor();
        } catch (IOException | NumberFormatException e) {
            System.out.println("floors: not measured (" + e.getMessage() + ")");
        }
        System.out.println("0. the machine's floors (benchmarks/native/floors.c, two processes, same clock): round trips");
        System.out.printf("   %-44s %10s %10s %8s%n", "", "p50 (µs)", "p99 (µs)", "trips");
        String[][] names = {{"spin", "a cache line between two spinning processes"}, {"futex", "futex wait/wake, each side asleep"},
            {"futex-one-way-busy-1ms", "futex one way, 1 ms asleep, waker busy (*)"}, {"futex-after-1ms", "futex, after 1 ms of silence"}, {"futex-after-10ms", "futex, after 10 ms of silence"},
            {"futex-after-100ms", "futex, after 100 ms of silence"}};
        for (String[] n : names) {
            long[] v = out.get(n[0]);
            if (v != null) {
                System.out.printf(Locale.ROOT, "   %-44s %10.2f %10.2f %8d%n", n[1], v[0] / 1e3, v[1] / 1e3, v[2]);
            }
        }
        if (out.containsKey("futex-one-way-busy-1ms")) {
            System.out.println("   (*) one way, not a round trip: a sleeper woken by a process that spun meanwhile (so the sleeper"
                    + "\n       usually runs on the other core, idle till then), as in section 3 paced at 1 ms");
        }
        System.out.println();
        return out;
    }

    /** How long a spin measure may take: about 20 ms on two cores; on one, each hand-off waits for a preemption. */
    private static final long SPIN_NOW_SECONDS = 10;

    /**
     * The spinning floor now, {p50 ns, p99 ns, count}, or null (without the program, on one core, or after
     * {@link #SPIN_NOW_SECONDS}): measured again after each row, as the host may move the VM's vCPUs nearer
     * or farther apart within a run (docs/BENCHMARKS.md).
     */
    static long[] spinNow(String program) throws InterruptedException {
        if (program == null || Runtime.getRuntime().availableProcessors() < 2) {
            return null;
        }
        try {
            Process p = new ProcessBuilder(program, "20000", "spin").redirectErrorStream(true).start();
            if (!p.waitFor(SPIN_NOW_SECONDS, TimeUnit.SECONDS)) { // its few lines fit the pipe: read them after
                p.destroyForcibly().waitFor();
                System.out.println("floors: the spin measure ran past " + SPIN_NOW_SECONDS + " s and was stopped");
                return null;
            }
            Map<String, long[]> out = new LinkedHashMap<>();
            readLines(p, out);
            return out.get("spin");
        } catch (IOException | NumberFormatException e) {
            System.out.println("floors: the spin measure failed (" + e.getMessage() + ")");
            return null;
        }
    }

    /** Puts each of the program's floor lines (name p50_ns p99_ns count) into out; prints any other line. */
    private static void readLines(Process p, Map<String, long[]> out) throws IOException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.trim().split(" ");
                if (f.length == 4) {
                    out.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
                } else {
                    System.out.println("floors: " + line);
                }
            }
        }
    }

    /** Our round trips' p50 and p99 as multiples of the spinning and the blocking floor. */
    static void printBeside(Map<String, long[]> floor, int[] sizesMb, double[][] ours, long[][] spinAfter) {
        long[] spin = floor.get("spin");
        long[] futex = floor.get("futex");
        if (spin == null || futex == null) {
            return;
        }
        System.out.println("   ours against the floors (ratio of p50 to p50, p99 to p99; spin then: the spinning floor");
        System.out.println("   measured again right after the row, and our p50 over it):");
        System.out.printf("   %6s %12s %12s %12s %12s %14s %14s%n", "MiB", "p50/spin", "p50/futex", "p99/spin", "p99/futex",
                "spin then p50", "p50/spin then");
        for (int k = 0; k < sizesMb.length; k++) {
            long[] then = spinAfter[k];
            System.out.printf(Locale.ROOT, "   %6d %11.1fx %11.1fx %11.1fx %11.1fx %14s %14s%n", sizesMb[k], ours[k][0] * 1e3 / spin[0],
                    ours[k][0] * 1e3 / futex[0], ours[k][1] * 1e3 / spin[1], ours[k][1] * 1e3 / futex[1],
                    then == null ? "" : String.format(Locale.ROOT, "%.2f µs", then[0] / 1e3),
                    then == null ? "" : String.format(Locale.ROOT, "%.1fx", ours[k][0] * 1e3 / then[0]));
        }
    }
}
