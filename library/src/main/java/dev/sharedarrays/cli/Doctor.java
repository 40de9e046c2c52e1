package dev.sharedarrays.cli;

import dev.sharedarrays.internal.backend.ShmBackend;
import dev.sharedarrays.internal.os.Libc;
import dev.sharedarrays.internal.os.Units;

import dev.sharedarrays.SharedArrays;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code sharedarrays doctor}: what makes shared memory fail in practice on this machine, one
 * line per check with its status, finding and fix. It only reads (and creates one memfd that it
 * closes at once). A warning is advice; a failed check (the shm directory unusable) makes the
 * exit status 1.
 */
final class Doctor {
    enum Status { OK, WARN, FAIL }

    /** One check's outcome: {@code fix} is what to do about it (for OK: what to do if it ever bites). */
    record Check(Status status, String name, String finding, String fix) {
        String line() {
            String word = switch (status) {
                case OK -> "ok";
                case WARN -> "warn";
                case FAIL -> "FAIL";
            };
            return String.format(Locale.ROOT, "%-4s  %-16s  %s; fix: %s", word, name, finding, fix);
        }
    }

    static final String SHM = "shm directory";
    static final String REMOVE_IPC = "RemoveIPC";
    static final String HUGE_PAGES = "shmem huge pages";
    static final String FD_LIMIT = "fd limit";
    static final String MAP_COUNT = "vm.max_map_count";
    static final String MEMFD = "memfd";

    private static final long SHM_WARN_BELOW = 1L << 30;
    private static final long FD_WARN_BELOW = 4096;
    private static final long MAPS_WARN_LEFT = 10_000;
    /** systemd's SYSTEM_UID_MAX on the common distributions: logind's RemoveIPC spares uids up to it. */
    private static final int SYSTEM_UID_MAX = 999;
    private static final Path ROOT = Path.of("/");

    private Doctor() {
    }

    /** Runs every check, prints its line and a summary; returns 1 if a check failed, else 0. */
    static int run(PrintStream out) {
        List<Check> checks = List.of(shmDirectory(), removeIpc(ROOT, Libc.geteuid()),
                hugePages(read(ROOT.resolve("sys/kernel/mm/transparent_hugepage/shmem_enabled")), shmMount()),
                fdLimit(read(ROOT.resolve("proc/self/limits"))), mapCount(), memfd());
        long failed = checks.stream().filter(c -> c.status() == Status.FAIL).count();
        long warned = checks.stream().filter(c -> c.status() == Status.WARN).count();
        for (Check c : checks) {
            out.println(c.line());
        }
        out.println("doctor: " + checks.size() + " checks, " + failed + " failed, " + warned + " warning(s)");
        return failed > 0 ? 1 : 0;
    }

    /** The file's text, or null if it cannot be read. */
    private static String read(Path p) {
        // a stream, not Files.readString: that one returns a truncated value for /proc/sys files
        try (InputStream in = Files.newInputStream(p)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    static Check shmDirectory() {
        String fix = "docker run --shm-size=2g (compose: shm_size; Kubernetes: an emptyDir with medium Memory at /dev/shm), "
                + "or mount -o remount,size=2G /dev/shm; SHARED_ARRAYS_BACKEND=memfd does not use it";
        Path dir;
        try {
            dir = SharedArrays.shmDirectory();
        } catch (IllegalStateException e) {
            return new Check(Status.FAIL, SHM, e.getMessage(), "mount a tmpfs there, or point SHARED_ARRAYS_DIR at one");
        }
        if (!Files.isWritable(dir)) {
            return new Check(Status.FAIL, SHM, dir + " is not writable by this user: no shm array can be created",
                    "make it writable (mode 1777, as /dev/shm is), or point SHARED_ARRAYS_DIR at a tmpfs directory of yours");
        }
        String unsafe = ShmBackend.othersMayRemove(dir);
        if (unsafe != null) {
            return new Check(Status.WARN, SHM, unsafe + "; creating shm arrays there is refused", ShmBackend.othersMayRemoveFix(dir));
        }
        FileStore store;
        long total;
        long free;
        try {
            store = Files.getFileStore(dir);
            total = store.getTotalSpace();
            free = store.getUsableSpace();
        } catch (IOException e) {
            return new Check(Status.FAIL, SHM, "cannot read the size of " + dir + ": " + e.getMessage(), fix);
        }
        String finding = dir + " (" + store.type() + "): " + Units.bytes(total) + ", " + Units.bytes(free) + " free";
        if (free < SHM_WARN_BELOW) {
            return new Check(Status.WARN, SHM, finding + ": less than 1 GiB (Docker gives a container 64 MB unless told "
                    + "--shm-size); a create that does not fit fails, and auto-detection picks memfd below 64 MiB free", fix);
        }
        if (!store.type().equals("tmpfs")) {
            return new Check(Status.WARN, SHM, finding + ": not a tmpfs, so arrays are written back to a disk",
                    "point SHARED_ARRAYS_DIR at a tmpfs (/dev/shm), or use SHARED_ARRAYS_BACKEND=memfd");
        }
        return new Check(Status.OK, SHM, finding, "if it fills up: " + fix);
    }

    /** Whether systemd-logind removes a user's shared memory when its last session ends, and the file that says so. */
    record RemoveIpc(boolean removes, String source) {
    }

    /**
     * The effective RemoveIPC setting under root: logind.conf, then its drop-ins (*.conf in
     * /usr/lib, /run and /etc logind.conf.d, the same name in a later place replacing an earlier
     * one) in file-name order; the last setting wins, and the default is yes.
     */
    static RemoveIpc removeIpcSetting(Path root) {
        RemoveIpc setting = new RemoveIpc(true, "the default");
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("etc/systemd/logind.conf"));
        Map<String, Path> dropIns = new TreeMap<>();
        for (String d : List.of("usr/lib/systemd/logind.conf.d", "run/systemd/logind.conf.d", "etc/systemd/logind.conf.d")) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(root.resolve(d), "*.conf")) {
                s.forEach(p -> dropIns.put(p.getFileName().toString(), p));
            } catch (IOException e) {
                // no such directory: nothing to add
            }
        }
        files.addAll(dropIns.values());
        for (Path f : files) {
            String text = read(f);
            if (text == null) {
                continue;
            }
            boolean login = false;
            for (String raw : text.split("\n")) {
                String line = raw.strip();
                if (line.startsWith("[")) {
                    login = line.equals("[Login]");
                } else if (login && !line.startsWith("#") && !line.startsWith(";") && line.contains("=")) {
                    String key = line.substring(0, line.indexOf('=')).strip();
                    String value = line.substring(line.indexOf('=') + 1).strip().toLowerCase(Locale.ROOT);
                    if (key.equals("RemoveIPC")) {
                        if (List.of("1", "yes", "y", "true", "t", "on").contains(value)) {
                            setting = new RemoveIpc(true, f.toString());
                        } else if (List.of("0", "no", "n", "false", "f", "off").contains(value)) {
                            setting = new RemoveIpc(false, f.toString());
                        }
                    }
                }
            }
        }
        return setting;
    }

    static Check removeIpc(Path root, int uid) {
        String fix = "put RemoveIPC=no under [Login] in /etc/systemd/logind.conf.d/sharedarrays.conf and restart "
                + "systemd-logind, or keep the user logged in (loginctl enable-linger <user>), or run as a system user";
        RemoveIpc s = removeIpcSetting(root);
        String setting = "RemoveIPC=" + (s.removes() ? "yes" : "no") + " (" + s.source() + ")";
        if (!Files.isDirectory(root.resolve("run/systemd/system"))) {
            return new Check(Status.OK, REMOVE_IPC, "systemd is not running here (no /run/systemd/system), so no logind "
                    + "removes segments at logout; " + setting, "on a systemd host: " + fix);
        }
        if (!s.removes()) {
            return new Check(Status.OK, REMOVE_IPC, setting + ": logind leaves shared memory alone at logout", "none needed");
        }
        if (uid <= SYSTEM_UID_MAX) {
            return new Check(Status.OK, REMOVE_IPC, setting + ", but uid " + uid + " is root or a system user, which "
                    + "logind spares", "for regular users: " + fix);
        }
        return new Check(Status.WARN, REMOVE_IPC, setting + " and uid " + uid + " is a regular user: when its last login "
                + "session ends (an ssh logout, a finished cron or CI job), systemd-logind deletes all its files in /dev/shm, "
                + "arrays in use included", fix);
    }

    /** A line of /proc/mounts: where a file system is mounted, its type and options. */
    record Mount(String point, String type, List<String> options) {
        /** The tmpfs huge= option ("never" when absent, as the kernel defaults). */
        String huge() {
            return options.stream().filter(o -> o.startsWith("huge=")).map(o -> o.substring(5)).findFirst().orElse("never");
        }
    }

    /**
     * The mount that holds {@code dir} (an absolute, resolved path), from the text of
     * /proc/mounts: the entry with the longest mount point that is dir or above it (of two at one
     * point, the later, which hides the earlier); null if none.
     */
    static Mount mountOf(String dir, String procMounts) {
        Mount best = null;
        if (procMounts == null) {
            return null;
        }
        for (String line : procMounts.split("\n")) {
            String[] f = line.split(" ");
            if (f.length < 4) {
                continue;
            }
            // the kernel writes a space, tab, newline or backslash in a mount point as an octal escape
            String point = f[1].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
            boolean holds = point.equals("/") || dir.equals(point) || dir.startsWith(point.endsWith("/") ? point : point + "/");
            if (holds && (best == null || point.length() >= best.point().length())) {
                best = new Mount(point, f[2], List.of(f[3].split(",")));
            }
        }
        return best;
    }

    /** The mount of the shm directory, or null if it is unknown. */
    private static Mount shmMount() {
        try {
            return mountOf(SharedArrays.shmDirectory().toRealPath().toString(), read(ROOT.resolve("proc/mounts")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * From the text of /sys/kernel/mm/transparent_hugepage/shmem_enabled (null: absent), which
     * rules memfd arrays (and every tmpfs with force or deny), and the mount of the shm directory
     * (null: unknown), whose huge= option rules shm arrays.
     */
    static Check hugePages(String shmemEnabled, Mount shm) {
        String howTo = "as root: mkdir -p /mnt/sa-huge && mount -t tmpfs -o huge=within_size,size=16g,mode=1777 tmpfs /mnt/sa-huge"
                + " and export SHARED_ARRAYS_DIR=/mnt/sa-huge (every process of the array, numpy's included, uses the same files),"
                + " or mount -o remount,huge=within_size /dev/shm; without root at run time: have such a tmpfs mounted "
                + "beforehand (an fstab line, a systemd mount unit, or the container's start as root); huge=advise does not help "
                + "(arrays are allocated at create, before any advice)";
        String mode = null;
        if (shmemEnabled != null) {
            mode = shmemEnabled.strip();
            int open = mode.indexOf('[');
            int close = mode.indexOf(']');
            if (open >= 0 && close > open) {
                mode = mode.substring(open + 1, close);
            }
        }
        String tmpfsHuge = shm == null || !shm.type().equals("tmpfs") ? null
                : "force".equals(mode) ? "always" : "deny".equals(mode) ? "never" : shm.huge();
        String dir = shm == null ? "the shm directory: mount unknown"
                : "shm directory on " + shm.point() + " (" + shm.type() + (tmpfsHuge != null ? " huge=" + tmpfsHuge : "") + ")";
        String memfd = mode == null ? "memfd: no shmem huge pages in this kernel" : "memfd: shmem_enabled=" + mode;
        String finding = dir + ", " + memfd;
        if ("always".equals(tmpfsHuge) || "always".equals(mode) || "force".equals(mode)) {
            return new Check(Status.WARN, HUGE_PAGES, finding + ": " + ("always".equals(tmpfsHuge) ? "shm" : "memfd")
                    + " arrays are backed by 2 MiB pages, so every small array costs at least 2 MiB of memory",
                    "huge=within_size (mount -o remount,huge=within_size " + (shm != null ? shm.point() : "<dir>")
                    + "; memfd: echo within_size > /sys/kernel/mm/transparent_hugepage/shmem_enabled) gives them only to arrays "
                    + "of 2 MiB or more");
        }
        if ("within_size".equals(tmpfsHuge)) {
            return new Check(Status.OK, HUGE_PAGES, finding + ": shm arrays of 2 MiB or more get 2 MiB pages (fewer TLB misses "
                    + "on large arrays, as numpy's own heap has)", "none needed");
        }
        return new Check(Status.OK, HUGE_PAGES, finding + ": shm arrays are in 4 KiB pages; large arrays pay per page "
                + "(bin/bench hugeshm, 1 GiB: create + fill 4-6x, a 4 KiB-stride column sum ~1.7x the time on a huge-page tmpfs; "
                + "sequential sum and a += b within the noise)", "for large arrays, a huge-page "
                + "tmpfs: " + howTo);
    }

    /** From the text of /proc/self/limits (null: unreadable). */
    static Check fdLimit(String limits) {
        String fix = "ulimit -n 65536 (the hard limit: nofile in /etc/security/limits.conf, LimitNOFILE= in a systemd unit, "
                + "docker run --ulimit nofile=65536:65536)";
        String line = limits == null ? null
                : Stream.of(limits.split("\n")).filter(l -> l.startsWith("Max open files")).findFirst().orElse(null);
        if (line == null) {
            return new Check(Status.WARN, FD_LIMIT, "cannot read RLIMIT_NOFILE from /proc/self/limits", fix);
        }
        String[] f = line.substring("Max open files".length()).strip().split("\\s+");
        long soft = limit(f[0]);
        String finding = "this JVM may open " + f[0] + " descriptors (hard limit " + (f.length > 1 ? f[1] : "?")
                + "; the JVM raises its soft limit to the hard one); each open array holds one";
        if (soft < FD_WARN_BELOW) {
            return new Check(Status.WARN, FD_LIMIT, finding + ": fewer than " + FD_WARN_BELOW
                    + ", so many open arrays run out (EMFILE)", fix);
        }
        return new Check(Status.OK, FD_LIMIT, finding, "to keep more arrays open: " + fix);
    }

    private static long limit(String s) {
        try {
            return s.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static Check mapCount() {
        String fix = "sysctl -w vm.max_map_count=262144 (to keep it: a file in /etc/sysctl.d)";
        String max = read(ROOT.resolve("proc/sys/vm/max_map_count"));
        long limit = max == null ? -1 : limit(max.strip());
        if (limit <= 0) {
            return new Check(Status.WARN, MAP_COUNT, "cannot read /proc/sys/vm/max_map_count", fix);
        }
        long used;
        try (Stream<String> lines = Files.lines(ROOT.resolve("proc/self/maps"))) {
            used = lines.count();
        } catch (IOException | UncheckedIOException e) {
            used = 0;
        }
        long left = limit - used;
        String finding = "vm.max_map_count=" + limit + ", this JVM uses " + used + " mappings, each open array adds one";
        if (left < MAPS_WARN_LEFT) {
            return new Check(Status.WARN, MAP_COUNT, finding + ": only " + left + " left before mmap fails (ENOMEM)", fix);
        }
        return new Check(Status.OK, MAP_COUNT, finding + ": room for about " + left + " more", "to keep more arrays open: " + fix);
    }

    static Check memfd() {
        String fix = "use the shm backend (enlarge /dev/shm), or allow memfd_create in the container's seccomp profile";
        int fd = Libc.memfdCreate("sharedarrays-doctor", Libc.MFD_CLOEXEC | Libc.MFD_ALLOW_SEALING);
        if (fd < 0) {
            return new Check(Status.WARN, MEMFD, "memfd_create failed (" + Libc.strerror(Libc.errno())
                    + "): the memfd backend is unavailable", fix);
        }
        try {
            if (Libc.fcntl(fd, Libc.F_ADD_SEALS, Libc.F_SEAL_SHRINK | Libc.F_SEAL_GROW) < 0) {
                return new Check(Status.WARN, MEMFD, "memfd_create works but sealing does not (" + Libc.strerror(Libc.errno())
                        + "): the memfd backend is unavailable", fix);
            }
        } finally {
            Libc.close(fd);
        }
        return new Check(Status.OK, MEMFD, "memfd_create and sealing work: SHARED_ARRAYS_BACKEND=memfd keeps arrays outside "
                + "/dev/shm, sealed against truncation", "none needed");
    }
}
