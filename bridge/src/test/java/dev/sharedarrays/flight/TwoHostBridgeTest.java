package dev.sharedarrays.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Two hosts: network namespaces A and B joined by a veth pair, each with its own shm directory.
 * On A a producer JVM fills two queues and the bridge server (bin/sharedarrays serve's code) serves
 * them on A's address with a token; on B a JVM pulls one queue into a local queue and pyarrow
 * reads the other. Then: a wrong token is refused, and a killed server is an exception on B
 * within seconds. Needs root (CI runs as root); without root it is skipped.
 */
class TwoHostBridgeTest {
    private static final int MESSAGES = 30;

    private static int run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        int rc = p.waitFor();
        if (rc != 0) {
            System.err.println("[two-host] " + String.join(" ", cmd) + " -> " + rc + ": " + out.strip());
        }
        return rc;
    }

    private static void must(String... cmd) throws IOException, InterruptedException {
        if (run(cmd) != 0) {
            throw new AssertionError("setup command failed: " + String.join(" ", cmd));
        }
    }

    private static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        return Files.exists(p.resolve("bridge")) ? p : p.getParent();
    }

    @Test
    void aProducerOnHostAReachesJvmAndPyarrowConsumersOnHostB() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root for network namespaces");
        must(repo().resolve("tools/ensure-iproute2").toString());
        Process py = new ProcessBuilder(repo().resolve("python/ensure-pyarrow").toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String python = new String(py.getInputStream().readAllBytes()).strip();
        assertEquals(0, py.waitFor(), "python/ensure-pyarrow failed");

        long pid = ProcessHandle.current().pid();
        String nsA = "sa-fa-" + pid;
        String nsB = "sa-fb-" + pid;
        String vethA = "safa" + (pid % 100000);
        String vethB = "safb" + (pid % 100000);
        String net = "10.231." + (pid % 250) + ".";
        String ipA = net + "1";
        Path dirA = Files.createDirectories(Path.of("/dev/shm", "sa-flight-a-" + pid));
        Path dirB = Files.createDirectories(Path.of("/dev/shm", "sa-flight-b-" + pid));
        Path tokenFile = Files.createTempFile("sa-flight-token", ".txt");
        String token = "t0k-" + Long.toHexString(System.nanoTime());
        Files.writeString(tokenFile, token + "\n");
        List<Proc> procs = new ArrayList<>();
        try {
            must("ip", "netns", "add", nsA);
            must("ip", "netns", "add", nsB);
            must("ip", "link", "add", vethA, "type", "veth", "peer", "name", vethB);
            must("ip", "link", "set", vethA, "netns", nsA);
            must("ip", "link", "set", vethB, "netns", nsB);
            must("ip", "-n", nsA, "addr", "add", ipA + "/24", "dev", vethA);
            must("ip", "-n", nsB, "addr", "add", net + "2/24", "dev", vethB);
            for (String ns : List.of(nsA, nsB)) {
                must("ip", "-n", ns, "link", "set", "lo", "up");
            }
            must("ip", "-n", nsA, "link", "set", vethA, "up");
            must("ip", "-n", nsB, "link", "set", vethB, "up");

            Map<String, String> hostA = Map.of("SHARED_ARRAYS_DIR", dirA.toString());
            Map<String, String> hostB = Map.of("SHARED_ARRAYS_DIR", dirB.toString(), "SHARED_ARRAYS_FLIGHT_TOKEN", token);
            Proc producer = start(procs, "A producer", nsA, Proc.java(BridgeChild.class.getName(), "produce", "" + MESSAGES,
                    "frames", "frames-py", "stall"), hostA);
            producer.expect("ready", 30);
            Proc server = start(procs, "A server", nsA, Proc.java("dev.sharedarrays.flight.internal.ServeCommand",
                    "--listen", ipA + ":8815", "--token-file", tokenFile.toString()), hostA);
            assertTrue(server.expect("serving", 30).contains("bearer token required"));
            String uri = "grpc+tcp://" + ipA + ":8815";

            Proc jvm = start(procs, "B jvm", nsB, Proc.java(BridgeChild.class.getName(), "pull", uri, "frames"), hostB);
            Proc pyarrow = start(procs, "B pyarrow", nsB, List.of(python, repo().resolve("bridge/src/test/resources/pyarrow_consumer.py").toString(),
                    uri, "frames-py", token), hostB);
            // each message once and in order, and the end of the stream reaches both
            assertEquals("end " + MESSAGES + " pulled " + MESSAGES + " free 4", jvm.expect("end", 60));
            assertEquals("end " + MESSAGES, pyarrow.expect("end", 60));
            assertEquals(inOrder(), gots(jvm.seen), "JVM consumer on B");
            assertTrue(pyarrow.seen.get(0).startsWith("refused none"), pyarrow.seen.toString());
            assertTrue(pyarrow.seen.get(1).startsWith("refused wrong"), pyarrow.seen.toString());
            assertEquals(inOrder(), gots(pyarrow.seen), "pyarrow consumer on B");
            producer.expect("sent", 10);
            assertEquals(0, jvm.process.waitFor(10, TimeUnit.SECONDS) ? jvm.process.exitValue() : -1);

            // a wrong token from a JVM on B: refused with a clear error
            Proc wrong = start(procs, "B wrong token", nsB, Proc.java(BridgeChild.class.getName(), "pull", uri, "frames"),
                    Map.of("SHARED_ARRAYS_DIR", dirB.toString(), "SHARED_ARRAYS_FLIGHT_TOKEN", "not-" + token));
            String refused = wrong.expect("error", 30);
            assertTrue(refused.contains("UNAUTHENTICATED") && refused.contains("wrong bearer token"), refused);

            // the network cut without a reset (B's link down): keepalive pings find the connection dead
            Proc cut = start(procs, "B cut off", nsB, Proc.java(BridgeChild.class.getName(), "pull", uri, "stall"), hostB);
            Thread.sleep(3000); // its JVM started and its stream waits on the empty queue
            assertTrue(cut.process.isAlive(), "the puller is waiting: " + cut.seen);
            long c0 = System.nanoTime();
            must("ip", "-n", nsB, "link", "set", vethB, "down");
            String silent = cut.expect("error", 25);
            double cutSeconds = (System.nanoTime() - c0) / 1e9;
            System.err.printf("[two-host] network cut noticed on B after %.2f s: %s%n", cutSeconds, silent);
            assertTrue(silent.contains("FlightBridgeException") && silent.contains("UNAVAILABLE"), silent);
            assertTrue(cutSeconds < 20, "B learned of the cut after " + cutSeconds + " s");
            must("ip", "-n", nsB, "link", "set", vethB, "up");

            // a server killed in the middle of a stream: an exception on B within seconds
            Proc waiting = start(procs, "B stalled", nsB, Proc.java(BridgeChild.class.getName(), "pull", uri, "stall"), hostB);
            Thread.sleep(3000); // its JVM started and its stream waits on the empty queue
            assertTrue(waiting.process.isAlive(), "the stalled puller is waiting: " + waiting.seen);
            long t0 = System.nanoTime();
            server.process.destroyForcibly();
            String broken = waiting.expect("error", 10);
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.err.printf("[two-host] killed server noticed on B after %.2f s: %s%n", seconds, broken);
            assertTrue(broken.contains("FlightBridgeException") && broken.contains("queue/stall"), broken);
            assertTrue(seconds < 5, "B learned of the killed server after " + seconds + " s");
        } finally {
            for (Proc p : procs) {
                p.close();
            }
            run("ip", "netns", "del", nsA);
            run("ip", "netns", "del", nsB);
            Files.deleteIfExists(tokenFile);
            for (Path d : List.of(dirA, dirB)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
                }
            }
        }
    }

    private static Proc start(List<Proc> procs, String label, String ns, List<String> command, Map<String, String> env) throws IOException {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(command);
        Proc p = new Proc(label, c, env);
        procs.add(p);
        return p;
    }

    private static List<String> inOrder() {
        List<String> l = new ArrayList<>();
        for (int k = 0; k < MESSAGES; k++) {
            l.add("got " + k);
        }
        return l;
    }

    private static List<String> gots(List<String> seen) {
        return seen.stream().filter(s -> s.startsWith("got ")).toList();
    }
}
