package dev.sharedarrays.benchmarks;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.F64;
import dev.sharedarrays.I64;
import dev.sharedarrays.SharedArrays;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pool slots streamed between JVMs through {@link ArrayQueue}: round trips against Python's
 * multiprocessing queues measured in the same run, one-way throughput and latency, and the
 * wake-up latency of {@code awaitChange}. The other end is always a child JVM.
 *
 * <pre>bin/bench queue [--sizes-mb 1,10,100,500,1000] [--iterations 2000] [--python-seconds 20] [--worker-cpus LIST]</pre>
 * ({@code --floors PROGRAM}: benchmarks/native/floors.c built, which bin/bench passes when it has a C compiler)
 * ({@code --worker-cpus}: the child JVMs run under {@code taskset -c LIST}; with {@code taskset -c 0 bin/bench queue}, LIST 0
 * puts both ends of a round trip on one core, LIST 1 on two)
 */
public final class QueueBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** The worker idles while we create the next pool: reserving gigabytes takes a while. */
    private static final Duration IDLE = Duration.ofMinutes(10);
    static final int ROUND_TRIP_WARMUP = 500;
    /** Each measurement first runs this long: the JITs of both JVMs need about 1.5 s on 2 cores. */
    private static final long WARMUP_NS = 2_000_000_000L;
    private static final long THROUGHPUT_NS = 2_000_000_000L;
    /** 50 µs: the receiver may still be in the library's 20-60 µs spin; 1 ms: it sleeps on the futex. */
    private static final long PACE_SHORT_NS = 50_000L;
    private static final long PACE_LONG_NS = 1_000_000L;
    private static double sink;

    private QueueBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 1 && args[0].equals("--child")) {
            child(args[1], Arrays.copyOfRange(args, 2, args.length));
            return;
        }
        int[] sizes = {1, 10, 100, 500, 1000};
        int iterations = 2000;
        double pythonSeconds = 20;
        String floors = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--floors" -> floors = args[++i];
                case "--sizes-mb" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--python-seconds" -> pythonSeconds = Double.parseDouble(args[++i]);
                case "--worker-cpus" -> workerCpus = args[++i];
                default -> {
                    System.err.println("usage: bin/bench queue [--sizes-mb 1,10,100,500,1000] [--iterations 2000] [--python-seconds 20]"
                            + " [--worker-cpus LIST] [--floors PROGRAM (bin/bench passes benchmarks/target/floors)]");
                    System.exit(2);
                }
            }
        }
        System.out.printf("shared-arrays queue benchmark: %s %s, %d cores%n%n", System.getProperty("java.vm.name"),
                Runtime.version(), Runtime.getRuntime().availableProcessors());

        Map<String, long[]> floor = Floors.measure(floors);
        double[][] trips = roundTrips(sizes, iterations, floors);
        printRoundTrips(sizes, iterations, trips, python(sizes, iterations, pythonSeconds));
        Floors.printBeside(floor, sizes, trips, spinAfterTrips);

        System.out.printf("%n2. one-way throughput, producer JVM -> this JVM: pool of 64 F64 slots, queue of 64; the producer%n"
                + "   acquires, writes element 0 (a sequence number), sends; we receive, check the sequence, close;%n"
                + "   2 s as fast as it can after 2 s of warm-up. Slots are handed over, not copied or filled:%n"
                + "   GB/s is slot bytes changing owner per second.%n   %-10s %16s %10s%n", "slot", "messages/s", "GB/s");
        double kibRate = throughput(128);
        long[] kibSpin = Floors.spinNow(floors);
        double mibRate = throughput(131072);
        long[] mibSpin = Floors.spinNow(floors);
        System.out.printf(Locale.ROOT, "   %-10s %,16.0f %10.2f%s%n", "1 KiB", kibRate, kibRate * 1024 / 1e9, spinThen(kibSpin, "   "));
        System.out.printf(Locale.ROOT, "   %-10s %,16.0f %10.2f%s%n", "1 MiB", mibRate, mibRate * 1048576 / 1e9, spinThen(mibSpin, "   "));

        System.out.printf("%n3. one-way latency, producer JVM -> this JVM, 1 KiB slots: nanoTime stamped into the slot just%n"
                + "   before send, read right after receive returns (CLOCK_MONOTONIC in both JVMs); the producer spins%n"
                + "   between sends, so the queue is empty at each; after a warm-up of 200,000 messages unpaced, then 2 s%n"
                + "   paced at 100 µs, then 2 s at the pace%n");
        double[] oneWay = oneWay(PACE_SHORT_NS, 20_000);
        double[] oneWaySlow = oneWay(PACE_LONG_NS, 5_000);
        printLatency(new String[] {"one every 50 µs, 20,000 messages", "one every 1 ms, 5,000 messages"}, oneWay, oneWaySlow);
        System.out.println("   (50 µs: the receiver may still be in the library's 20-60 µs spin; 1 ms: it sleeps on the futex)");
        long[] oneWayFloor = floor.get("futex-one-way-busy-1ms");
        if (oneWayFloor != null) {
            System.out.printf(Locale.ROOT, "   floor paced 1 ms (section 0, C): p50 %.1f µs, p99 %.1f µs%n", oneWayFloor[0] / 1e3, oneWayFloor[1] / 1e3);
        }

        System.out.printf("%n4. awaitChange wake-up across JVMs: we stamp nanoTime and signalChange() an I64 array, the child%n"
                + "   stamps nanoTime when awaitChange returns; each signal waits for the previous one's acknowledgement%n"
                + "   and a pause; after 2 s of warm-up%n");
        double[] wake = wakeUps(PACE_SHORT_NS, 10_000);
        double[] wakeSlow = wakeUps(PACE_LONG_NS, 2_000);
        printLatency(new String[] {"50 µs after each ack, 10,000 signals", "1 ms after each ack, 2,000 signals"}, wake, wakeSlow);
        System.out.println("   (50 µs: the waiter may still be in the library's 20-60 µs spin; 1 ms: it sleeps on the futex)");

        printAfterSilence(sizes[0], floor);

        int worst = 0;
        for (int k = 1; k < trips.length; k++) {
            worst = trips[k][0] > trips[worst][0] ? k : worst;
        }
        double worstP50 = trips[worst][0];
        double worstP99 = Arrays.stream(trips).mapToDouble(t -> t[1]).max().orElse(Double.NaN);
        System.out.println("\ngoals");
        goal("round-trip p50 <= 1.5 µs at every size", worstP50 <= 1.5, "worst p50 " + us(worstP50) + " µs"
                + spinThen(spinAfterTrips[worst], " "));
        goal("round-trip p99 <= 5 µs at every size", worstP99 <= 5, "worst p99 " + us(worstP99) + " µs");
        goal(">= 2,000,000 messages/s at 1 KiB", kibRate >= 2e6, String.format(Locale.ROOT, "%,.0f/s", kibRate)
                + spinThen(kibSpin, " "));
        // the latency goals must hold whether the other side still spins or already sleeps
        goal("one-way p99 <= 20 µs", Math.max(oneWay[1], oneWaySlow[1]) <= 20,
                "p99 " + us(oneWay[1]) + " µs paced 50 µs, " + us(oneWaySlow[1]) + " µs paced 1 ms"
                + (oneWayFloor == null ? "" : " (C floor paced 1 ms: p99 " + us(oneWayFloor[1] / 1e3) + " µs)"));
        goal("awaitChange median < 100 µs", Math.max(wake[0], wakeSlow[0]) < 100,
                "median " + us(wake[0]) + " µs paced 50 µs, " + us(wakeSlow[0]) + " µs paced 1 ms");
    }

    // ---- 1. round trips ----

    /**
     * {p50, p99, max} in µs per size: we send on q1, the worker sends the same slot back on q2. With the
     * floors program, each size's cache-line floor right after it goes to {@link #spinAfterTrips}.
     */
    private static double[][] roundTrips(int[] sizesMb, int iterations, String floors) throws IOException, InterruptedException {
        double[][] result = new double[sizesMb.length][];
        spinAfterTrips = new long[sizesMb.length][];
        try (ArrayQueue q1 = ArrayQueue.create(2); ArrayQueue q2 = ArrayQueue.create(2)) {
            Process worker = start("worker", q1.handle().toString(), q2.handle().toString());
            try {
                for (int k = 0; k < sizesMb.length; k++) {
                    try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 2, sizesMb[k], 128, 128, 8)) {
                        warmUp(pool, q1, q2);
                        long[] ns = new long[iterations];
                        for (int i = 0; i < iterations; i++) {
                            ns[i] = trip(pool, q1, q2, i);
                        }
                        result[k] = percentiles(ns);
                        spinAfterTrips[k] = Floors.spinNow(floors); // the worker waits meanwhile, asleep after 50 µs
                        if (k == 0) {
                            afterSilence = silentTrips(pool, q1, q2);
                        }
                    }
                }
                q1.end();
                finish(worker);
            } finally {
                kill(worker);
            }
        }
        return result;
    }

    /** The spinning floor measured right after each size's round trips (null entries without the program). */
    private static long[][] spinAfterTrips;

    /** gap + "(a cache line's round trip right after: x µs)" for a row, or "" without a measure. */
    private static String spinThen(long[] spin, String gap) {
        return spin == null ? "" : String.format(Locale.ROOT, "%s(a cache line's round trip right after: %.2f µs)", gap, spin[0] / 1e3);
    }

    /** A warm-up that ends once this JVM's JIT has compiled nothing for this long (and both other bounds hold). */
    private static final long JIT_QUIET_NS = 1_000_000_000L;
    private static final long WARMUP_MAX_NS = 15_000_000_000L;

    /**
     * Round trips until at least {@link #ROUND_TRIP_WARMUP} of them and {@link #WARMUP_NS} have passed, and this
     * JVM's JIT has been quiet for {@link #JIT_QUIET_NS} (at most {@link #WARMUP_MAX_NS} in all). While the JIT
     * threads of the two JVMs keep one core busy, the scheduler runs both ends of the trip on the other, and a trip
     * costs two context switches (docs/BENCHMARKS.md, "Why a round trip was bimodal"): not the steady state.
     */
    static void warmUp(ArrayPool<F64> pool, ArrayQueue q1, ArrayQueue q2) {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long compiled = timed ? jit.getTotalCompilationTime() : 0;
        long quietSince = start;
        for (int i = 0; ; i++) {
            trip(pool, q1, q2, -1 - (i & 0xffff));
            long now = System.nanoTime();
            if (timed && (i & 63) == 0) {
                long c = jit.getTotalCompilationTime();
                if (c != compiled) {
                    compiled = c;
                    quietSince = now;
                }
            }
            boolean quiet = !timed || now - quietSince >= JIT_QUIET_NS;
            if ((i >= ROUND_TRIP_WARMUP && now - start >= WARMUP_NS && quiet) || now - start >= WARMUP_MAX_NS) {
                return;
            }
        }
    }

    /** The pause before each of the after-silence trips' warm-up trips: longer than a wait's spin, so the worker sleeps. */
    private static final long SILENT_WARM_PAUSE_NS = 100_000L;
    /** Silences before a round trip, in ms, and how many trips after each. */
    private static final int[][] SILENCES = {{1, 300}, {10, 100}, {100, 20}};
    /** {p50, p99, max, p50 there, p50 back} in µs of the first size's trips after each of {@link #SILENCES}. */
    private static double[][] afterSilence;

    /**
     * Round trips that each start after a silence: both sides asleep on their futex by then. The worker stamps
     * when its receive returned (System.nanoTime, one clock for all processes), which splits a trip into its
     * legs: there (our send, its wake-up and receive) and back (its send, our wake-up and receive).
     */
    private static double[][] silentTrips(ArrayPool<F64> pool, ArrayQueue q1, ArrayQueue q2) throws InterruptedException {
        // first, for WARMUP_NS, trips after 100 µs pauses: section 1 never made the worker sleep, nor took trip's branch
        // for the legs, and both were compiled (or deoptimized) while the trips below were timed (section 3 found the same)
        long[] leg = new long[1];
        for (long end = System.nanoTime() + WARMUP_NS; System.nanoTime() - end < 0; ) {
            LockSupport.parkNanos(SILENT_WARM_PAUSE_NS);
            trip(pool, q1, q2, -1, leg, 0);
        }
        double[][] out = new double[SILENCES.length][];
        for (int s = 0; s < SILENCES.length; s++) {
            long[] ns = new long[SILENCES[s][1]];
            long[] there = new long[ns.length];
            long[] back = new long[ns.length];
            for (int i = 0; i < ns.length; i++) {
                Thread.sleep(SILENCES[s][0]);
                ns[i] = trip(pool, q1, q2, i, there, i);
                back[i] = ns[i] - there[i];
            }
            double[] p = percentiles(ns);
            out[s] = new double[] {p[0], p[1], p[2], percentiles(there)[0], percentiles(back)[0]};
        }
        return out;
    }

    /** Our round trips after silence beside the futex floor after the same silence. */
    private static void printAfterSilence(int sizeMb, Map<String, long[]> floor) {
        System.out.printf("%n5. after silence: round trips of section 1 (%d MiB) that each start after 1, 10 or 100 ms of idle,%n"
                + "   beside the futex floor after the same idle (benchmarks/native/floors.c)%n", sizeMb);
        System.out.printf("   %-12s %10s %10s %12s %12s %16s %16s%n", "idle", "ours p50", "ours p99", "there p50", "back p50",
                "futex floor p50", "futex floor p99");
        for (int s = 0; s < SILENCES.length; s++) {
            long[] f = floor.get("futex-after-" + SILENCES[s][0] + "ms");
            double[] a = afterSilence[s];
            System.out.printf(Locale.ROOT, "   %-12s %10s %10s %12s %12s %16s %16s%n", SILENCES[s][0] + " ms (" + SILENCES[s][1] + ")",
                    us(a[0]), us(a[1]), us(a[3]), us(a[4]), f == null ? "" : us(f[0] / 1e3), f == null ? "" : us(f[1] / 1e3));
        }
        System.out.println("   (µs; in brackets: trips. there: our send until the worker's receive returned, its wake-up included;"
                + "\n    back: from then until our receive returned)");
    }

    /** Nanoseconds from send on q1 until receive on q2 returns the slot marked {@code mark}. */
    static long trip(ArrayPool<F64> pool, ArrayQueue q1, ArrayQueue q2, int mark) {
        return trip(pool, q1, q2, mark, null, 0);
    }

    /** The same; with {@code there}, also there[at]: nanoseconds from send until the JVM worker's receive returned. */
    private static long trip(ArrayPool<F64> pool, ArrayQueue q1, ArrayQueue q2, int mark, long[] there, int at) {
        SharedNDArray<F64> s = pool.acquire(TIMEOUT);
        s.setDouble(0, mark);
        long t0 = System.nanoTime();
        q1.send(s, TIMEOUT);
        SharedNDArray<F64> r = q2.receive(F64.TYPE, TIMEOUT);
        long t1 = System.nanoTime();
        if (r.getDouble(0) != mark) {
            throw new IllegalStateException("trip " + mark + " came back holding " + r.getDouble(0));
        }
        if (there != null) {
            there[at] = Double.doubleToRawLongBits(r.getDouble(1)) - t0;
        }
        r.close();
        return t1 - t0;
    }

    private static void worker(String in, String out) {
        try (ArrayQueue q1 = ArrayQueue.attach(in); ArrayQueue q2 = ArrayQueue.attach(out)) {
            SharedNDArray<F64> a;
            while ((a = q1.receive(F64.TYPE, IDLE)) != null) {
                sink += a.getDouble(0); // touch the data so receiving cannot be a no-op, as the Python worker does
                a.setDouble(1, Double.longBitsToDouble(System.nanoTime())); // when the receive returned: section 5's legs
                q2.send(a, TIMEOUT);
            }
        }
    }

    private record Py(String kind, int mb, int n, double p50, double p99, String versions) {
    }

    /** The rows of benchmarks/python/queue_roundtrip.py; none (and a line saying why) if it failed. */
    private static List<Py> python(int[] sizesMb, int iterations, double seconds) throws InterruptedException {
        List<Py> rows = new ArrayList<>();
        try {
            Path script = AttachBenchmark.locate("benchmarks/python/queue_roundtrip.py");
            String sizes = String.join(",", Arrays.stream(sizesMb).mapToObj(Integer::toString).toList());
            Process p = new ProcessBuilder("python3", script.toString(), "--sizes-mb", sizes, "--iterations",
                    Integer.toString(iterations), "--max-seconds", Double.toString(seconds))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("{")) {
                        String torch = field(line, "torch");
                        rows.add(new Py(field(line, "case"), Integer.parseInt(field(line, "mb")), Integer.parseInt(field(line, "n")),
                                Double.parseDouble(field(line, "p50_us")), Double.parseDouble(field(line, "p99_us")),
                                "python " + field(line, "python") + ", numpy " + field(line, "numpy")
                                        + (torch == null ? "" : ", torch " + torch)));
                    }
                }
            }
            if (p.waitFor() != 0) {
                throw new IllegalStateException("python3 " + script + " exited with " + p.exitValue());
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("python: no figures (" + e.getMessage() + ")");
        }
        return rows;
    }

    private static void printRoundTrips(int[] sizesMb, int iterations, double[][] ours, List<Py> py) {
        boolean torch = py.stream().anyMatch(r -> r.kind().startsWith("torch"));
        System.out.printf("1. round trip this JVM -> worker JVM -> this JVM of one pool slot, F64 (N, 128, 128, 8) = N MiB,%n"
                + "   queue q1 out, q2 back, pool of 2 slots; %,d trips after >= %d and >= 2 s of warm-up, and 1 s%n"
                + "   without a JIT compilation in this JVM (15 s at most).%n"
                + "   Beside it python's multiprocessing.Queue pickling a numpy array both ways (n trips: at most%n"
                + "   --python-seconds per size)%n", iterations, ROUND_TRIP_WARMUP);
        System.out.printf("   %6s %10s %10s %7s %12s %12s %10s", "MiB", "ours p50", "ours p99", "py n", "numpy p50", "numpy p99", "numpy/ours");
        System.out.printf(torch ? " %12s %12s %10s%n" : "%n", "torch p50", "torch p99", "torch/ours");
        for (int k = 0; k < sizesMb.length; k++) {
            Py np = find(py, "numpy", sizesMb[k]);
            System.out.printf("   %6d %10s %10s %7s %s", sizesMb[k], us(ours[k][0]), us(ours[k][1]),
                    np == null ? "" : Integer.toString(np.n()), pyCells(np, ours[k][0]));
            System.out.println(torch ? " " + pyCells(find(py, "torch", sizesMb[k]), ours[k][0]) : "");
        }
        System.out.println("   (µs; ratio: python p50 / ours p50)");
        if (!py.isEmpty()) {
            System.out.println("   " + py.get(0).versions());
        }
        if (!torch) {
            System.out.println("   torch: not installed in this python3");
        }
    }

    private static Py find(List<Py> rows, String kind, int mb) {
        return rows.stream().filter(r -> r.kind().startsWith(kind) && r.mb() == mb).findFirst().orElse(null);
    }

    /** p50, p99 and the ratio of p50 to ours, or blanks. */
    private static String pyCells(Py r, double oursP50) {
        double ratio = r == null ? 0 : r.p50() / oursP50;
        return String.format(Locale.ROOT, "%12s %12s %10s", r == null ? "" : us(r.p50()), r == null ? "" : us(r.p99()),
                r == null ? "" : String.format(Locale.ROOT, ratio < 100 ? "%.1fx" : "%,.0fx", ratio));
    }

    // ---- 2. throughput and 3. one-way latency ----

    /** Messages per second received from a producer child sending as fast as it can. */
    private static double throughput(long elements) throws IOException, InterruptedException {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 64, elements); ArrayQueue q = ArrayQueue.create(64)) {
            Process producer = start("producer", pool.handle().toString(), q.handle().toString(), "0", "0",
                    Long.toString(Long.MAX_VALUE), Long.toString(WARMUP_NS + THROUGHPUT_NS), "0", "0", "0");
            try {
                long expected = 0, first = 0, t0 = 0, n0 = 0;
                SharedNDArray<F64> r;
                while ((r = q.receive(F64.TYPE, TIMEOUT)) != null) {
                    if (r.getDouble(0) != expected) {
                        throw new IllegalStateException("message " + r.getDouble(0) + " arrived where " + expected + " was due");
                    }
                    r.close();
                    if ((expected++ & 1023) == 0 && t0 == 0) { // nanoTime on every message would cost a few %
                        long now = System.nanoTime();
                        first = first == 0 ? now : first;
                        if (now - first >= WARMUP_NS) {
                            t0 = now;
                            n0 = expected;
                        }
                    }
                }
                long t1 = System.nanoTime();
                finish(producer);
                if (t0 == 0) {
                    throw new IllegalStateException("the producer stopped before the warm-up ended (" + expected + " messages)");
                }
                return (expected - n0) * 1e9 / (t1 - t0);
            } finally {
                kill(producer);
            }
        }
    }

    /** Unpaced messages first in a one-way run: both JVMs' JITs compile the send and receive paths on them. */
    private static final int ONE_WAY_BURST = 200_000;
    /** The pace of the one-way warm-up's second part: the receiver sleeps between messages, every time. */
    private static final long ONE_WAY_WARM_PACE_NS = 100_000L;

    /**
     * {p50, p99, max} in µs from the stamp before send to the return of receive, one message every paceNs. The
     * warm-up: {@link #ONE_WAY_BURST} messages as fast as they go, then {@link #WARMUP_NS} of them paced at
     * {@link #ONE_WAY_WARM_PACE_NS} (the receiver's sleep path), then as long paced at paceNs. With the last part
     * alone, both JVMs still compiled while messages were timed (paced at 1 ms, 2 s ran the paths 2,000 times; at
     * 50 µs the receiver seldom sleeps), and on 2 cores a woken receiver waited for a compiler thread's core, up to
     * a scheduler tick (docs/BENCHMARKS.md).
     */
    private static double[] oneWay(long paceNs, int count) throws IOException, InterruptedException {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 64, 128); ArrayQueue q = ArrayQueue.create(64)) {
            long base = System.nanoTime();
            int sleeps = (int) (WARMUP_NS / ONE_WAY_WARM_PACE_NS);
            long[] ns = new long[ONE_WAY_BURST + sleeps + (int) (WARMUP_NS / paceNs) + count];
            Process producer = start("producer", pool.handle().toString(), q.handle().toString(), Long.toString(base),
                    Long.toString(paceNs), Integer.toString(ns.length), Long.toString(Duration.ofHours(1).toNanos()),
                    Integer.toString(ONE_WAY_BURST), Long.toString(ONE_WAY_WARM_PACE_NS), Integer.toString(sleeps));
            try {
                // the warm-up's messages are received and timed by the same loop: a branch first taken at the first
                // timed message would deoptimize the compiled loop right there
                for (int i = 0; i < ns.length; i++) {
                    SharedNDArray<F64> r = q.receive(F64.TYPE, TIMEOUT);
                    long now = System.nanoTime() - base;
                    if (r == null || r.getDouble(0) != i) {
                        throw new IllegalStateException("message " + i + " is missing");
                    }
                    ns[i] = now - (long) r.getDouble(1);
                    r.close();
                }
                finish(producer);
                return percentiles(Arrays.copyOfRange(ns, ns.length - count, ns.length));
            } finally {
                kill(producer);
            }
        }
    }

    /**
     * Sends {@code count} slots or for {@code nanos}, whichever ends first, then ends the queue. Element 0
     * is the sequence number; paced (paceNs > 0), element 1 is nanoTime - base just before the send, and the
     * first {@code burst} go unpaced, the {@code warm} after them paced at warmPaceNs.
     */
    private static void producer(String poolHandle, String queue, long base, long paceNs, long count, long nanos, long burst,
            long warmPaceNs, long warm) {
        try (ArrayPool<F64> pool = ArrayPool.attach(ArrayHandle.parse(poolHandle), F64.TYPE); ArrayQueue q = ArrayQueue.attach(queue)) {
            long last = System.nanoTime();
            long end = last + nanos;
            for (long seq = 0; seq < count && ((seq & 255) != 0 || System.nanoTime() - end < 0); seq++) {
                // the switch to paceNs comes warm-up time before the first timed message, so its branch is compiled by then
                long pace = seq < burst ? 0 : seq < burst + warm ? warmPaceNs : paceNs;
                if (pace > 0) { // unpaced, a clock read a message would be the bench's cost, not the queue's
                    long previous = last;
                    spinUntil(() -> System.nanoTime() - previous >= pace, "the pause");
                }
                SharedNDArray<F64> s = pool.acquire(TIMEOUT);
                s.setDouble(0, seq);
                if (paceNs > 0) {
                    last = System.nanoTime();
                    s.setDouble(1, last - base); // relative to base, so that a double holds it exactly
                }
                q.send(s, TIMEOUT);
            }
            q.end();
        }
    }

    // ---- 4. awaitChange ----

    /** {p50, p99, max} in µs from our stamp before signalChange to the child's after awaitChange returns. */
    private static double[] wakeUps(long paceNs, int count) throws IOException, InterruptedException {
        int warmup = (int) (WARMUP_NS / paceNs);
        int n = warmup + count;
        // row 0: our stamps before each signal, row 1: the child's at each wake-up (0 until it acknowledges)
        try (SharedNDArray<I64> a = SharedArrays.create(I64.TYPE, 2, n)) {
            Process waiter = start("waiter", a.handle().toString(), Integer.toString(n));
            try {
                for (int i = 0; i < n; i++) {
                    long acked = System.nanoTime();
                    spinUntil(() -> System.nanoTime() - acked >= paceNs, "the pause");
                    a.setVolatile(i, System.nanoTime());
                    a.signalChange();
                    int signal = i;
                    spinUntil(() -> a.getVolatile(n + signal) != 0, "the waiter's acknowledgement");
                }
                finish(waiter);
                long[] ns = new long[count];
                for (int i = 0; i < count; i++) {
                    ns[i] = a.getLong(n + warmup + i) - a.getLong(warmup + i);
                }
                return percentiles(ns);
            } finally {
                kill(waiter);
            }
        }
    }

    private static void waiter(String handle, int n) {
        try (SharedNDArray<I64> a = SharedArrays.attach(ArrayHandle.parse(handle), I64.TYPE)) {
            for (long seen = 0; seen < n; ) {
                long c = a.awaitChange(seen, TIMEOUT);
                long now = System.nanoTime();
                if (c == seen) {
                    throw new IllegalStateException("no signal within " + TIMEOUT + " after " + seen);
                }
                a.setVolatile(n + c - 1, now);
                seen = c;
            }
        }
    }

    // ---- children and figures ----

    private static void child(String role, String[] a) {
        switch (role) {
            case "worker" -> worker(a[0], a[1]);
            case "producer" -> producer(a[0], a[1], Long.parseLong(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]), Long.parseLong(a[5]),
                    Long.parseLong(a[6]), Long.parseLong(a[7]), Long.parseLong(a[8]));
            case "waiter" -> waiter(a[0], Integer.parseInt(a[1]));
            default -> throw new IllegalArgumentException("no child role " + role);
        }
    }

    /** taskset's cpu list for the child JVMs (section 1's worker among them), or null: where the scheduler puts them. */
    private static String workerCpus;

    private static Process start(String role, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (workerCpus != null) {
            cmd.addAll(List.of("taskset", "-c", workerCpus));
        }
        cmd.addAll(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                QueueBenchmark.class.getName(), "--child", role));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).inheritIO().start();
    }

    private static void finish(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("child JVM " + p.pid() + " did not finish cleanly");
        }
    }

    private static void kill(Process p) throws InterruptedException {
        if (p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** {p50, p99, max} in µs, nearest rank, as queue_roundtrip.py computes them. */
    private static double[] percentiles(long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        int n = s.length;
        return new double[] {s[(int) Math.ceil(n * 0.5) - 1] / 1e3, s[(int) Math.ceil(n * 0.99) - 1] / 1e3, s[n - 1] / 1e3};
    }

    /** Spins until done: sleeping would wake late by tens of µs. */
    private static void spinUntil(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + " did not come within " + TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }

    private static void goal(String what, boolean met, String value) {
        System.out.printf("  %-45s %-8s %s%n", what, met ? "met" : "NOT MET", value);
    }

    private static void printLatency(String[] rows, double[]... v) {
        System.out.printf("   %-36s %10s %10s %10s%n", "", "p50 (µs)", "p99 (µs)", "max (µs)");
        for (int i = 0; i < rows.length; i++) {
            System.out.printf("   %-36s %10s %10s %10s%n", rows[i], us(v[i][0]), us(v[i][1]), us(v[i][2]));
        }
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, v < 1000 ? "%.1f" : "%,.0f", v);
    }

    /** The value of key in one flat JSON line, unquoted; null for JSON null. */
    private static String field(String json, String key) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\":\\s*(\"([^\"]*)\"|[^,}\\s]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + key + " in " + json);
        }
        return m.group(2) != null ? m.group(2) : m.group(1).equals("null") ? null : m.group(1);
    }
}
