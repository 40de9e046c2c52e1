package dev.sharedarrays.benchmarks;

import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.flight.ClientOptions;
import dev.sharedarrays.flight.FlightBridge;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Throughput of the Flight bridge from host A to host B (two network namespaces joined by a veth
 * pair; root), beside pyarrow.flight's own do_get/do_put of the same bytes between two Python
 * processes on the same link, in the same run. JVM: A's queue pulled by B (DoGet queue/…, into
 * B's pool and queue) and A's queue forwarded to B (DoPut queue/…); every process a separate
 * one, each server the one {@code sharedarrays serve} runs. Each side runs one stream (JVM) or one
 * connection (pyarrow, a call per round) in rounds of ~total-mb each; the figures are the median
 * and the best of `rounds` rounds after the warm-up: pyarrow's first round (it connects), the
 * JVM's rounds until the compilers of its JVMs were quiet for a round (at most {@link #WARMUP_MAX_NS}).
 *
 * <pre>bin/bench flight [--sizes-mb 1,64] [--total-mb 1024] [--rounds 8] [--loopback]</pre>
 * {@code --loopback} runs both "hosts" on 127.0.0.1 (no root needed).
 */
public final class FlightBenchmark {
    private static final Duration LONG = Duration.ofSeconds(120);
    private static final int SLOTS = 8;
    /** A JVM stream counts as warm when the compiler threads of all its JVMs used at most this much CPU in a window. */
    private static final long QUIET_COMPILER_MS = 20;
    /** The window: the rounds of at least this long. */
    private static final long QUIET_WINDOW_NS = 1_000_000_000L;
    /** The JVM's warm-up ends here, quiet or not; the feeding side has rounds for this long at 0.1 GB/s. */
    private static final long WARMUP_MAX_NS = 30_000_000_000L;
    private static final int WARMUP_MAX_ROUNDS = 60;

    private FlightBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        int[] sizes = {1, 64};
        long totalMb = 1024;
        int rounds = 8;
        boolean loopback = false;
        String python = "python3";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes-mb" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                case "--total-mb" -> totalMb = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--loopback" -> loopback = true;
                case "--python" -> python = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: bin/bench flight [--sizes-mb 1,64] [--total-mb 1024] [--rounds 8] [--loopback]");
            }
        }
        if (!loopback && !"root".equals(System.getProperty("user.name"))) {
            System.err.println("bin/bench flight: network namespaces need root; --loopback runs both hosts on 127.0.0.1");
            System.exit(2);
        }
        new FlightBenchmark.Run(sizes, totalMb, rounds, loopback, python).run();
    }

    /** One benchmark run: the two hosts, their processes, the table. */
    private static final class Run {
        final int[] sizes;
        final long totalMb;
        final int rounds;
        final boolean loopback;
        final String python;
        final long pid = ProcessHandle.current().pid();
        final String nsA = "sa-ba-" + pid;
        final String nsB = "sa-bb-" + pid;
        final String ipA;
        final String ipB;
        final List<Child> children = new ArrayList<>();
        /** The JVM servers require it (they listen beyond loopback); pyarrow's servers check none. */
        final String token = Long.toHexString(System.nanoTime()) + Long.toHexString(ProcessHandle.current().pid());
        final Path tokenFile = Path.of(System.getProperty("java.io.tmpdir"), "sa-bench-token-" + pid);
        Path dirA;
        Path dirB;

        Run(int[] sizes, long totalMb, int rounds, boolean loopback, String python) {
            this.sizes = sizes;
            this.totalMb = totalMb;
            this.rounds = rounds;
            this.loopback = loopback;
            this.python = python;
            String net = "10.232." + (pid % 250) + ".";
            this.ipA = loopback ? "127.0.0.1" : net + "1";
            this.ipB = loopback ? "127.0.0.1" : net + "2";
        }

        void run() throws Exception {
            dirA = Files.createDirectories(Path.of("/dev/shm", "sa-bench-a-" + pid));
            dirB = Files.createDirectories(Path.of("/dev/shm", "sa-bench-b-" + pid));
            // Ctrl-C: the children, namespaces and directories go too
            Thread hook = new Thread(this::cleanUp, "flight-bench-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                if (!loopback) {
                    hosts();
                }
                // the JVM servers: A's on 8815 serves A's queues; B's (8817 on loopback, else 8815) takes puts
                int jvmPortB = loopback ? 8817 : 8815;
                Files.writeString(tokenFile, token);
                Child serverA = start("A serve", nsA, dirA, java("dev.sharedarrays.flight.internal.ServeCommand", "--listen", ipA + ":8815",
                        "--token-file", tokenFile.toString()));
                Child serverB = start("B serve", nsB, dirB, java("dev.sharedarrays.flight.internal.ServeCommand", "--listen", ipB + ":" + jvmPortB,
                        "--token-file", tokenFile.toString()));
                serverA.expect("serving");
                serverB.expect("serving");
                System.out.printf(Locale.ROOT, "Arrow Flight, host A -> host B %s; one stream each, %d rounds after a warm-up (pyarrow: a round;"
                        + " JVM: until its compilers are quiet), ~%d MiB per round%n",
                        loopback ? "(both on 127.0.0.1: --loopback)" : "(network namespaces joined by a veth pair)", rounds, totalMb);
                System.out.printf(Locale.ROOT, "%-8s %-34s %21s %21s %14s %9s%n", "", "", "bridge (JVM), GB/s", "pyarrow.flight, GB/s", "ratio",
                        "JVM");
                System.out.printf(Locale.ROOT, "%-8s %-34s %10s %10s %10s %10s %7s %6s %9s%n", "size", "direction (Flight call)",
                        "median", "best", "median", "best", "median", "best", "warm-up");
                for (int mb : sizes) {
                    long bytes = (long) mb << 20;
                    int count = (int) Math.max(SLOTS, totalMb / mb);
                    String tag = "b" + mb + "-" + pid;
                    Timed jvmGet = jvmGet(tag, bytes, count, serverA, serverB);
                    double[] pyGet = pyGet(bytes, count);
                    row(mb, "A's queue pulled by B (DoGet)", jvmGet, pyGet);
                    Timed jvmPut = jvmPut(tag, bytes, count, jvmPortB, serverA, serverB);
                    double[] pyPut = pyPut(bytes, count);
                    row(mb, "A's queue forwarded to B (DoPut)", jvmPut, pyPut);
                }
            } finally {
                cleanUp();
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        }

        synchronized void cleanUp() {
            for (Child c : children) {
                c.close();
            }
            children.clear();
            try {
                if (!loopback) {
                    exec("ip", "netns", "del", nsA);
                    exec("ip", "netns", "del", nsB);
                }
                Files.deleteIfExists(tokenFile);
                for (Path d : List.of(dirA, dirB)) {
                    if (Files.exists(d)) {
                        try (Stream<Path> s = Files.walk(d)) {
                            s.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
                        }
                    }
                }
            } catch (IOException e) {
                System.err.println("cleanup: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** A row: the median and the best of each side's rounds (bytes/s), their ratios, the JVM's warm-up. */
        void row(int mb, String what, Timed timed, double[] py) {
            double[] jvm = timed.rates();
            System.out.printf(Locale.ROOT, "%-8s %-34s %10.2f %10.2f %10.2f %10.2f %6.0f%% %5.0f%% %7.1f s%n", mb + " MiB", what,
                    Stats.median(jvm) / 1e9, max(jvm) / 1e9, Stats.median(py) / 1e9, max(py) / 1e9, 100 * Stats.median(jvm) / Stats.median(py),
                    100 * max(jvm) / max(py), timed.warmUpNanos() / 1e9);
            System.out.flush();
        }

        void hosts() throws IOException, InterruptedException {
            String vethA = "saba" + (pid % 100000);
            String vethB = "sabb" + (pid % 100000);
            must("ip", "netns", "add", nsA);
            must("ip", "netns", "add", nsB);
            must("ip", "link", "add", vethA, "type", "veth", "peer", "name", vethB);
            must("ip", "link", "set", vethA, "netns", nsA);
            must("ip", "link", "set", vethB, "netns", nsB);
            must("ip", "-n", nsA, "addr", "add", ipA + "/24", "dev", vethA);
            must("ip", "-n", nsB, "addr", "add", ipB + "/24", "dev", vethB);
            for (String ns : List.of(nsA, nsB)) {
                must("ip", "-n", ns, "link", "set", "lo", "up");
            }
            must("ip", "-n", nsA, "link", "set", vethA, "up");
            must("ip", "-n", nsB, "link", "set", vethB, "up");
        }

        /** A feeds one queue; B pulls it into its pool and queue in one stream: its rounds after the warm-up. */
        Timed jvmGet(String tag, long bytes, int count, Child... servers) throws Exception {
            Child feed = start("A feed", nsA, dirA, java(FlightBenchmark.class.getName(), "--child", "feed", tag,
                    "" + (rounds + WARMUP_MAX_ROUNDS + 1), "" + count, "" + bytes));
            feed.expect("queue");
            Child drain = start("B drain", nsB, dirB, java(FlightBenchmark.class.getName(), "--child", "drain",
                    "grpc+tcp://" + ipA + ":8815", tag, "" + count, "" + bytes));
            Timed r = warmRounds(drain, feed, servers);
            feed.expect("done");
            drain.expect("done");
            return r;
        }

        /** B holds one queue; A forwards into it in one stream: its rounds after the warm-up, timed on B. */
        Timed jvmPut(String tag, long bytes, int count, int port, Child... servers) throws Exception {
            Child sink = start("B sink", nsB, dirB, java(FlightBenchmark.class.getName(), "--child", "sink", tag + "-in", "" + count, "" + bytes));
            sink.expect("queue");
            Child fwd = start("A forward", nsA, dirA, java(FlightBenchmark.class.getName(), "--child", "forward",
                    "grpc+tcp://" + ipB + ":" + port, tag + "-in", "" + (rounds + WARMUP_MAX_ROUNDS + 1), "" + count, "" + bytes));
            Timed r = warmRounds(sink, fwd, servers);
            fwd.expect("sent");
            sink.expect("done");
            return r;
        }

        /** Bytes/s of a JVM stream's measured rounds and how long its warm-up took. */
        record Timed(double[] rates, long warmUpNanos) {
        }

        /**
         * The rounds `timed` prints ("round r bytes seconds"): the first (connecting), then rounds until the
         * compiler threads of every JVM of the stream used at most {@link #QUIET_COMPILER_MS} over at least
         * {@link #QUIET_WINDOW_NS} of them (the JIT of four JVMs keeps a core busy for seconds: not the steady
         * state), then `rounds` measured ones; then the feeding side is told to end the stream. The warm-up
         * ends at {@link #WARMUP_MAX_NS} or {@link #WARMUP_MAX_ROUNDS}, quiet or not: the feeding side has
         * rounds for that many.
         */
        Timed warmRounds(Child timed, Child feeding, Child... servers) throws InterruptedException {
            CompilerTime compilers = new CompilerTime(Stream.concat(Stream.of(timed, feeding), Stream.of(servers))
                    .mapToLong(c -> c.process.pid()).toArray());
            timed.expect("round");
            long start = System.nanoTime();
            long windowStart = start;
            compilers.added();
            for (int r = 0; r < WARMUP_MAX_ROUNDS && System.nanoTime() - start < WARMUP_MAX_NS; r++) {
                timed.expect("round");
                long now = System.nanoTime();
                if (now - windowStart < QUIET_WINDOW_NS) {
                    continue;
                }
                if (compilers.added() <= QUIET_COMPILER_MS) {
                    break;
                }
                windowStart = now;
            }
            long warmUp = System.nanoTime() - start;
            double[] r = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                String[] f = timed.expect("round").split(" ");
                r[i] = Double.parseDouble(f[2]) / Double.parseDouble(f[3]);
            }
            feeding.say("stop");
            return new Timed(r, warmUp);
        }

        /** Bytes/s of each of `rounds` lines "PREFIX r bytes seconds" after a first one (connecting, warming up). */
        double[] rounds(Child c, String prefix) throws InterruptedException {
            double[] r = new double[rounds];
            for (int i = 0; i <= rounds; i++) {
                String[] f = c.expect(prefix).split(" ");
                if (i > 0) {
                    r[i - 1] = Double.parseDouble(f[2]) / Double.parseDouble(f[3]);
                }
            }
            return r;
        }

        double[] pyGet(long bytes, int count) throws Exception {
            Child server = start("A pyserve", nsA, dirA, List.of(python, script(), "serve", ipA, "8816", "" + bytes, "" + count));
            server.expect("serving");
            try (Child get = start("B pyget", nsB, dirB, List.of(python, script(), "get", "grpc+tcp://" + ipA + ":8816", "" + bytes, "" + count,
                    "" + (rounds + 1)))) {
                return rounds(get, "round");
            } finally {
                server.close();
            }
        }

        double[] pyPut(long bytes, int count) throws Exception {
            String port = loopback ? "8818" : "8816";
            Child server = start("B pyserve", nsB, dirB, List.of(python, script(), "serve", ipB, port, "" + bytes, "" + count));
            server.expect("serving");
            try (Child put = start("A pyput", nsA, dirA, List.of(python, script(), "put", "grpc+tcp://" + ipB + ":" + port, "" + bytes, "" + count,
                    "" + (rounds + 1)))) {
                return rounds(put, "round");
            } finally {
                server.close();
            }
        }

        String script() {
            return AttachBenchmark.locate("benchmarks/python/flight_bench.py").toString();
        }

        Child start(String label, String ns, Path dir, List<String> command) throws IOException {
            List<String> c = new ArrayList<>();
            if (!loopback) {
                c.addAll(List.of("ip", "netns", "exec", ns));
            }
            c.addAll(command);
            Child child = new Child(label, c, Map.of("SHARED_ARRAYS_DIR", dir.toString(), ClientOptions.TOKEN_ENV, token));
            children.add(child);
            return child;
        }
    }

    static double max(double[] v) {
        return Arrays.stream(v).max().orElse(0);
    }

    static List<String> java(String main, String... args) {
        List<String> c = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            c.add("--sun-misc-unsafe-memory-access=allow");
        }
        c.addAll(List.of("-Xmx1g", "-cp", System.getProperty("java.class.path"), main));
        c.addAll(List.of(args));
        return c;
    }

    static void must(String... cmd) throws IOException, InterruptedException {
        if (exec(cmd) != 0) {
            throw new IllegalStateException("failed: " + String.join(" ", cmd));
        }
    }

    static int exec(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        if (rc != 0) {
            System.err.println(String.join(" ", cmd) + ": " + out.strip());
        }
        return rc;
    }

    /** A child process whose stdout lines wait for {@link #expect}; stderr is passed through with a label. */
    static final class Child implements AutoCloseable {
        final String label;
        final Process process;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Child(String label, List<String> command, Map<String, String> env) throws IOException {
            this.label = label;
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().remove("SHARED_ARRAYS_BACKEND");
            pb.environment().putAll(env);
            process = pb.start();
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (line.startsWith("error")) {
                            System.err.println("[" + label + "] " + line);
                        }
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // gone
                }
            });
            t.setDaemon(true);
            t.start();
            Thread e = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        System.err.println("[" + label + "] " + line);
                    }
                } catch (IOException x) {
                    // gone
                }
            });
            e.setDaemon(true);
            e.start();
        }

        String expect(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + LONG.toNanos();
            while (true) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null && System.nanoTime() < deadline && (process.isAlive() || !lines.isEmpty())) {
                    continue;
                }
                if (line == null) {
                    throw new IllegalStateException(label + " printed no '" + prefix + "' line in " + LONG
                            + (process.isAlive() ? "" : "; it exited with " + process.exitValue()));
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
                if (line.startsWith("error")) {
                    throw new IllegalStateException(label + ": " + line);
                }
            }
        }

        /** A line on the child's stdin. */
        void say(String line) {
            try {
                process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().flush();
            } catch (IOException e) {
                // it ended already (it ran out of rounds): what it printed says the rest
            }
        }

        @Override
        public void close() {
            process.destroy(); // SIGTERM: a server closes what it holds
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- the child processes ----

    private static void child(String[] a) throws Exception {
        try {
            switch (a[0]) {
                case "feed" -> feed(a[1], Integer.parseInt(a[2]), Integer.parseInt(a[3]), Long.parseLong(a[4]));
                case "drain" -> drain(a[1], a[2], Integer.parseInt(a[3]), Long.parseLong(a[4]));
                case "sink" -> sink(a[1], Integer.parseInt(a[2]), Long.parseLong(a[3]));
                case "forward" -> forward(a[1], a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]), Long.parseLong(a[5]));
                default -> throw new IllegalArgumentException(a[0]);
            }
        } catch (RuntimeException e) {
            System.out.println("error " + e);
            System.out.flush();
            throw e;
        }
    }

    private static ArrayPool<F64> filledPool(long bytes) {
        ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, SLOTS, bytes / 8);
        List<SharedNDArray<F64>> all = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            SharedNDArray<F64> s = pool.acquire(LONG);
            s.data().fill((byte) 1);
            all.add(s);
        }
        all.forEach(SharedNDArray::close);
        return pool;
    }

    /**
     * Host A: queue `tag` ("queue" once made), at most rounds x count slots sent into it (fewer once
     * "stop" comes on stdin), then ended; waits until drained.
     */
    private static void feed(String tag, int rounds, int count, long bytes) throws InterruptedException {
        try (ArrayPool<F64> pool = filledPool(bytes);
             ArrayQueue q = ArrayQueue.create(SLOTS, CreateOptions.defaults().name(tag))) {
            BooleanSupplier stopped = stopLine();
            // the puller starts on this line: the stream does not wait for its queue
            System.out.println("queue");
            System.out.flush();
            for (long k = 0; k < (long) rounds * count && !stopped.getAsBoolean(); k++) {
                q.send(pool.acquire(LONG), LONG);
            }
            q.end();
            while (q.size() > 0) {
                Thread.sleep(5);
            }
            // the last message is taken; keep the queue until the server let go of its slot
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (pool.free() < SLOTS && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            System.out.println("done");
        }
    }

    /**
     * Where one stream is timed, in rounds of {@code count} messages each: prints "round r bytes
     * seconds" as each round's last message arrives (round 0 includes connecting).
     */
    private static final class Rounds {
        final int count;
        final long bytes;
        long t0 = System.nanoTime();
        long n;
        int round;

        Rounds(int count, long bytes) {
            this.count = count;
            this.bytes = bytes;
        }

        void received() {
            if (++n % count == 0) {
                long now = System.nanoTime();
                System.out.printf(Locale.ROOT, "round %d %d %.6f%n", round++, count * bytes, (now - t0) / 1e9);
                System.out.flush();
                t0 = now;
            }
        }
    }

    /** Host B: pulls `tag` into a local pool and queue, which this thread empties, timing its rounds. */
    private static void drain(String uri, String tag, int count, long bytes) throws InterruptedException {
        try (ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, SLOTS, bytes / 8);
             ArrayQueue local = ArrayQueue.create(SLOTS)) {
            Rounds rounds = new Rounds(count, bytes);
            CompletableFuture<Long> pulled = FlightBridge.pullAsync(uri, tag, pool, local, ClientOptions.defaults());
            while (true) {
                SharedNDArray<?> m;
                try {
                    m = local.receive(Duration.ofMillis(200));
                } catch (dev.sharedarrays.WaitTimeoutException e) {
                    if (pulled.isCompletedExceptionally()) {
                        pulled.join(); // throws what ended the pull
                    }
                    continue;
                }
                if (m == null) {
                    break;
                }
                m.close();
                rounds.received();
            }
            pulled.join();
        }
        System.out.println("done");
    }

    /** A slot, or what ended the forwarding if it ended while every slot was in flight. */
    private static SharedNDArray<F64> acquire(ArrayPool<F64> pool, CompletableFuture<Long> fwd) {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (true) {
            try {
                return pool.acquire(Duration.ofMillis(200));
            } catch (dev.sharedarrays.WaitTimeoutException e) {
                if (fwd.isDone() || System.nanoTime() > deadline) {
                    fwd.join(); // throws what ended it
                    throw e;
                }
            }
        }
    }

    /** Host B: queue `tag` ("queue" once made), emptied as it fills until it ends, timing its rounds. */
    private static void sink(String tag, int count, long bytes) {
        try (ArrayQueue q = ArrayQueue.create(SLOTS, CreateOptions.defaults().name(tag))) {
            System.out.println("queue");
            System.out.flush();
            Rounds rounds = new Rounds(count, bytes);
            SharedNDArray<?> m;
            while ((m = q.receive(LONG)) != null) {
                m.close();
                rounds.received();
            }
        }
        System.out.println("done");
    }

    /** True once a line "stop" has come on stdin (read by a daemon thread). */
    private static BooleanSupplier stopLine() {
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null && !line.equals("stop")) {
                    // waiting
                }
                stop.set(line != null);
            } catch (IOException e) {
                // no stdin: the stream runs all its rounds
            }
        }, "stop-line");
        t.setDaemon(true);
        t.start();
        return stop::get;
    }

    /** Host A: forwards at most rounds x count slots (fewer once "stop" comes on stdin) to B's queue `tag`, one stream (B times it). */
    private static void forward(String uri, String tag, int rounds, int count, long bytes) throws Exception {
        try (ArrayPool<F64> pool = filledPool(bytes);
             ArrayQueue local = ArrayQueue.create(SLOTS)) {
            BooleanSupplier stopped = stopLine();
            CompletableFuture<Long> fwd = FlightBridge.forwardAsync(local, uri, tag, ClientOptions.defaults());
            for (long k = 0; k < (long) rounds * count && !stopped.getAsBoolean(); k++) {
                local.send(acquire(pool, fwd), LONG);
            }
            local.end();
            System.out.println("sent " + fwd.get());
        }
    }
}
