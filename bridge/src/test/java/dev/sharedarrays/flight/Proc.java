package dev.sharedarrays.flight;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A child process of the bridge tests: stdout lines queued for {@link #expect}, stderr echoed with a prefix. */
public final class Proc implements AutoCloseable {
    public final String label;
    public final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    public final List<String> seen = new ArrayList<>();

    public Proc(String label, List<String> command, Map<String, String> env) throws IOException {
        this.label = label;
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("SHARED_ARRAYS_BACKEND");
        pb.environment().remove("SHARED_ARRAYS_FLIGHT_TOKEN");
        pb.environment().putAll(env);
        this.process = pb.start();
        Thread out = new Thread(() -> pump(new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)), true));
        Thread err = new Thread(() -> pump(new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)), false));
        out.setDaemon(true);
        err.setDaemon(true);
        out.start();
        err.start();
    }

    /** java with the flags the bridge needs, this JVM's class path, and main class + args. */
    public static List<String> java(String mainClass, String... args) {
        List<String> c = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"),
                "--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            c.add("--sun-misc-unsafe-memory-access=allow");
        }
        c.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass));
        c.addAll(List.of(args));
        return c;
    }

    private void pump(BufferedReader r, boolean stdout) {
        try (r) {
            String line;
            while ((line = r.readLine()) != null) {
                if (stdout) {
                    lines.add(line);
                } else {
                    System.err.println("[" + label + "] " + line);
                }
            }
        } catch (IOException e) {
            // the process went away
        }
    }

    /** The next stdout line that starts with prefix (earlier ones are kept in {@link #seen}); an AssertionError after seconds. */
    public String expect(String prefix, double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(label + " printed no line starting with '" + prefix + "' within " + seconds + " s; it printed " + seen
                        + (process.isAlive() ? "" : " and exited with " + process.exitValue()));
            }
            seen.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
