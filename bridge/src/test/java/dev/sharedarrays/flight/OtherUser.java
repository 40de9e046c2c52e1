package dev.sharedarrays.flight;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A second local user that a test makes (useradd) and removes (userdel) on close, with a copy of
 * this JVM's class path it can read (the Maven repository under /root is not readable to it).
 * Needs root; {@link #available()} says whether the test can run.
 */
final class OtherUser implements AutoCloseable {
    final String name;
    final int uid;
    final Path scratch;
    private final String classPath;

    static boolean available() {
        return "root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/sbin/useradd"))
                && Files.isExecutable(Path.of("/usr/bin/setpriv"));
    }

    OtherUser() throws IOException, InterruptedException {
        name = "sa-other-" + ProcessHandle.current().pid() % 1_000_000;
        must("/usr/sbin/useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name);
        Path dir = null;
        try {
            uid = Integer.parseInt(out("id", "-u", name).strip());
            dir = Files.createTempDirectory("sa-other-user", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            List<String> entries = new ArrayList<>();
            int i = 0;
            for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                Path src = Path.of(e);
                if (!Files.exists(src)) {
                    continue;
                }
                Path dst = dir.resolve(i++ + (Files.isDirectory(src) ? "" : "-" + src.getFileName()));
                copy(src, dst);
                entries.add(dst.toString());
            }
            classPath = String.join(java.io.File.pathSeparator, entries);
            scratch = dir;
        } catch (IOException | RuntimeException e) {
            if (dir != null) {
                delete(dir);
            }
            run("/usr/sbin/userdel", name);
            throw e;
        }
    }

    /** {@link Proc#java}'s command with the copied class path, run as this user. */
    List<String> java(String mainClass, String... args) {
        List<String> c = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        List<String> j = Proc.java(mainClass, args);
        j.set(j.indexOf("-cp") + 1, classPath);
        j.add(1, "-XX:-UsePerfData"); // no /tmp/hsperfdata_<user> left behind
        c.addAll(j);
        return c;
    }

    private static void copy(Path src, Path dst) throws IOException {
        try (Stream<Path> all = Files.walk(src)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.setPosixFilePermissions(t, PosixFilePermissions.fromString(Files.isDirectory(t) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String out(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String s = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + s.strip());
        }
        return s;
    }

    private static void must(String... cmd) throws IOException, InterruptedException {
        out(cmd);
    }

    private static void run(String... cmd) {
        try {
            out(cmd);
        } catch (IOException | InterruptedException e) {
            System.err.println("[other user] " + e.getMessage());
        }
    }

    /** Removes the user and the copied class path (the test ends the processes it started as this user first). */
    @Override
    public void close() throws IOException {
        run("/usr/sbin/userdel", name);
        delete(scratch);
    }
}
