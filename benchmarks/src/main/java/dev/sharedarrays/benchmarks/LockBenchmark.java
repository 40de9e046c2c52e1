package dev.sharedarrays.benchmarks;

import dev.sharedarrays.I64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedBarrier;
import dev.sharedarrays.SharedNDArray;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Cost of the cross-process lock without contention, of atomics, and the round trip of a
 * SharedBarrier between two JVMs.
 *
 * <pre>bin/bench locks [--rounds 20000]</pre>
 */
public final class LockBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static volatile long sink;
    /** The lambda's work: a plain store (the lock orders it), not a volatile one whose fence the row would time too. */
    private static long count;

    private LockBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("--party")) {
            party(args[1], Integer.parseInt(args[2]));
            return;
        }
        int rounds = 20_000;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: bin/bench locks [--rounds N]");
                System.exit(2);
            }
        }
        System.out.println("uncontended, one thread (median of 5 runs of 5M operations)");
        try (SharedNDArray<I64> a = SharedArrays.create(I64.TYPE, 1024)) {
            SharedNDArray<I64> unlocked = a.unlocked();
            row("write lock + unlock (lockWrite().close())", () -> a.lockWrite().close());
            row("read lock + unlock (lockRead().close())", () -> a.lockRead().close());
            row("withWriteLock { count++ } (a lambda)", () -> a.withWriteLock(() -> count++));
            row("getAndAdd on an I64 element", () -> sink = a.getAndAdd(7, 1));
            row("compareAndSet on an I64 element", () -> a.compareAndSet(8, sink, sink + 1));
            row("fill of 1024 elements (takes the write lock)", () -> a.fill(3L));
            row("fill of 1024 elements, unlocked() view", () -> unlocked.fill(3L));
        }
        if (count == 0) {
            throw new AssertionError("the lambda never ran");
        }
        System.out.println();
        barrierRoundTrip(rounds);
    }

    private static void row(String what, Runnable op) {
        int n = 5_000_000;
        for (int i = 0; i < n; i++) {
            op.run(); // warm-up
        }
        double[] runs = new double[5];
        for (int r = 0; r < runs.length; r++) {
            long t = System.nanoTime();
            for (int i = 0; i < n; i++) {
                op.run();
            }
            runs[r] = (System.nanoTime() - t) / (double) n;
        }
        Arrays.sort(runs);
        System.out.printf("  %-50s %8.1f ns%n", what, runs[runs.length / 2]);
    }

    /** Two JVMs meet at a 2-party barrier again and again; each trip as seen by this JVM is one round trip. */
    private static void barrierRoundTrip(int rounds) throws Exception {
        int warmup = Math.max(rounds / 2, 1000);
        try (SharedBarrier b = SharedBarrier.create(2)) {
            b.register();
            String java = ProcessHandle.current().info().command().orElse("java");
            Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp",
                    System.getProperty("java.class.path"), LockBenchmark.class.getName(), "--party", b.handle().toString(),
                    Integer.toString(warmup + rounds))
                    .inheritIO().start();
            try {
                long[] trips = new long[rounds];
                for (int i = 0; i < warmup; i++) {
                    b.await(TIMEOUT);
                }
                long last = System.nanoTime();
                for (int i = 0; i < rounds; i++) {
                    b.await(TIMEOUT);
                    long now = System.nanoTime();
                    trips[i] = now - last;
                    last = now;
                }
                if (!child.waitFor(60, TimeUnit.SECONDS) || child.exitValue() != 0) {
                    throw new IllegalStateException("the other party did not finish cleanly");
                }
                Arrays.sort(trips);
                System.out.printf("2-JVM SharedBarrier round trip (%,d rounds after %,d warm-up, 2 cores)%n", rounds, warmup);
                System.out.printf("  p50 %8.1f µs%n", trips[rounds / 2] / 1e3);
                System.out.printf("  p99 %8.1f µs%n", trips[(int) (rounds * 0.99)] / 1e3);
                System.out.printf("  max %8.1f µs%n", trips[rounds - 1] / 1e3);
            } finally {
                if (child.isAlive()) {
                    child.destroyForcibly();
                }
            }
        }
    }

    private static void party(String handle, int rounds) {
        try (SharedBarrier b = SharedBarrier.attach(handle)) {
            b.register();
            for (int i = 0; i < rounds; i++) {
                b.await(TIMEOUT);
            }
        }
    }
}
