package dev.sharedarrays.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.flight.Proc;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A real standalone cluster: Spark's own Master and Worker (from the Maven jars, in a Spark home
 * laid out under target/) in two network namespaces joined by a veth pair. On host A the array
 * (written by a child JVM), the bridge ({@code sharedarrays serve} with a token), the Master and
 * the driver; on host B the Worker, whose executor reads the rows through A's bridge. Spark SQL's
 * sums equal the driver's own; an executor killed in the middle of a job is replaced and its tasks
 * retried, the result still right; nothing is left in either host's shm directory. Needs root;
 * without it the test is skipped and says so.
 */
class SparkClusterTest {
    private static final long ROWS = 200_000;

    private static int run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        int rc = p.waitFor();
        if (rc != 0) {
            System.err.println("[cluster] " + String.join(" ", cmd) + " -> " + rc + ": " + out.strip());
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
        return Files.exists(p.resolve("spark")) ? p : p.getParent();
    }

    /** java with Spark's flags (as spark/pom.xml lists them), this JVM's class path, and main class + args. */
    private static List<String> java(String mainClass, String... args) {
        List<String> c = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-Xmx512m", "-XX:+UseSerialGC",
                "-XX:-UsePerfData"));
        c.addAll(List.of(System.getProperty("spark.jvm.flags").trim().split("\\s+")));
        c.add("-Dspark.jvm.flags=" + System.getProperty("spark.jvm.flags").trim());
        c.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        c.addAll(List.of(args));
        return c;
    }

    private static Proc start(List<Proc> procs, String label, String ns, List<String> command, Map<String, String> env) throws IOException {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(command);
        Proc p = new Proc(label, c, env);
        procs.add(p);
        return p;
    }

    /** /proc's record of a process's command line (ProcessHandle.Info gives none for one of 100 KB). */
    private static String commandLine(ProcessHandle h) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline")).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A Spark home whose jars/ holds this JVM's class path (what the Worker's executor launcher
     * looks for), marked as a release (RELEASE: else the launcher looks for a source build's directories).
     */
    private static Path sparkHome() throws IOException {
        Path home = repo().resolve("spark/target/spark-home");
        Path jars = Files.createDirectories(home.resolve("jars"));
        Files.writeString(home.resolve("RELEASE"), "Spark from the Maven jars of shared-arrays' tests\n");
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            if (e.endsWith(".jar") && Files.isRegularFile(p) && !Files.exists(jars.resolve(p.getFileName()), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(jars.resolve(p.getFileName()), p.toAbsolutePath());
            }
        }
        return home;
    }

    @Test
    void executorsOnAnotherHostReadThroughTheBridgeAndAKilledOneIsRetried() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root for network namespaces");
        must(repo().resolve("tools/ensure-iproute2").toString());
        long pid = ProcessHandle.current().pid();
        String nsA = "sa-sa-" + pid;
        String nsB = "sa-sb-" + pid;
        String vethA = "sasa" + (pid % 100000);
        String vethB = "sasb" + (pid % 100000);
        String net = "10.232." + (pid % 250) + ".";
        String ipA = net + "1";
        String ipB = net + "2";
        Path dirA = Files.createDirectories(Path.of("/dev/shm", "sa-spark-a-" + pid));
        Path dirB = Files.createDirectories(Path.of("/dev/shm", "sa-spark-b-" + pid));
        Path work = Files.createTempDirectory("sa-spark-worker");
        Path tokenFile = Files.createTempFile("sa-spark-token", ".txt");
        String token = "t0k-" + Long.toHexString(System.nanoTime());
        Files.writeString(tokenFile, token + "\n");
        Path home = sparkHome();
        List<Proc> procs = new ArrayList<>();
        try {
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
            Map<String, String> hostA = Map.of("SHARED_ARRAYS_DIR", dirA.toString(), "SPARK_HOME", home.toString(), "SPARK_LOCAL_IP", ipA);
            // (SPARK_SCALA_VERSION: the executor launcher otherwise looks for a source build's directories)
            Map<String, String> hostB = Map.of("SHARED_ARRAYS_DIR", dirB.toString(), "SPARK_HOME", home.toString(), "SPARK_LOCAL_IP", ipB,
                    "SPARK_SCALA_VERSION", "2.13");

            // host A: the array, the bridge, the master
            Proc array = start(procs, "A array", nsA, java(ArrayHolder.class.getName(), "cluster-readings", "" + ROWS), hostA);
            array.expect("READY", 60);
            Proc server = start(procs, "A serve", nsA, Proc.java("dev.sharedarrays.flight.internal.ServeCommand", "--listen", ipA + ":8815",
                    "--token-file", tokenFile.toString()), hostA);
            server.expect("serving", 60);
            Proc masterProc = start(procs, "A master", nsA, java("org.apache.spark.deploy.master.Master", "--host", ipA, "--port", "7077",
                    "--webui-port", "18580"), hostA);
            // host B: a worker with one core
            Proc worker = start(procs, "B worker", nsB, java("org.apache.spark.deploy.worker.Worker", "spark://" + ipA + ":7077",
                    "--host", ipB, "--cores", "1", "--memory", "1g", "--work-dir", work.toString(), "--webui-port", "18581"), hostB);
            Thread.sleep(1000);
            assertTrue(masterProc.process.isAlive() && worker.process.isAlive(), "master or worker did not start");

            Proc driver = start(procs, "A driver", nsA, java(ClusterDriver.class.getName(), "spark://" + ipA + ":7077",
                    "grpc+tcp://" + ipA + ":8815", token, "cluster-readings", ipA, System.getProperty("java.class.path")), hostA);
            String[] sums = driver.expect("SUMS", 180).split(" ");
            System.err.println("[cluster] Spark SQL's sums through the bridge: " + sums[1] + "; the array's own: " + sums[2]);
            assertEquals(sums[2], sums[1], "per-column sums on B's executor against the driver's own");
            driver.expect("SLOW STARTED", 30);
            // kill the executor (the worker's child, this test's) while its tasks run
            ProcessHandle executor = null;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (executor == null && System.nanoTime() < deadline) {
                executor = worker.process.toHandle().descendants().filter(h -> commandLine(h).contains("CoarseGrainedExecutorBackend"))
                        .findFirst().orElse(null);
                Thread.sleep(100);
            }
            assertTrue(executor != null, "no executor under the worker");
            Thread.sleep(2500); // a few of the 8 one-second tasks done
            System.err.println("[cluster] killing executor pid " + executor.pid());
            executor.destroyForcibly();
            String[] slow = driver.expect("SLOW ", 180).split(" ");
            System.err.println("[cluster] after the kill: " + slow[1] + "; the array's own: " + slow[2]);
            assertEquals(Double.parseDouble(slow[2]), Double.parseDouble(slow[1]), "the job with a killed executor");
            assertEquals(0, driver.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) ? driver.process.exitValue() : -1);
            array.process.getOutputStream().close(); // the holder removes its array
            assertEquals(0, array.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) ? array.process.exitValue() : -1);
            server.close();
            try (Stream<Path> a = Files.list(dirA); Stream<Path> b = Files.list(dirB)) {
                assertEquals(List.of(), a.toList(), "host A's shm directory");
                assertEquals(List.of(), b.toList(), "host B's shm directory");
            }
        } finally {
            for (int i = procs.size() - 1; i >= 0; i--) {
                // the worker's executors and the driver's children were started for this test too
                procs.get(i).process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                procs.get(i).close();
            }
            run("ip", "netns", "del", nsA);
            run("ip", "netns", "del", nsB);
            Files.deleteIfExists(tokenFile);
            for (Path d : List.of(dirA, dirB, work)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
                }
            }
        }
    }
}
