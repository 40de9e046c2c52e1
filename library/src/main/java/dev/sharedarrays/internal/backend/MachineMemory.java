package dev.sharedarrays.internal.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The memory this process may use: the machine's (/proc/meminfo), or its cgroup's limit if lower. */
final class MachineMemory {
    private MachineMemory() {
    }

    /** Bytes, or 0 if unknown. */
    static long bytes() {
        long total = memTotal();
        long cgroup = cgroupMax();
        return cgroup > 0 && (total == 0 || cgroup < total) ? cgroup : total;
    }

    private static long memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                // "MemTotal:       24582556 kB"
                if (line.startsWith("MemTotal:")) {
                    String[] f = line.substring("MemTotal:".length()).trim().split("\\s+");
                    return Long.parseLong(f[0]) << 10;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: unknown
        }
        return 0;
    }

    /** The memory limit of this process's cgroup (v2, else v1, as a container sees it); 0 if none or unknown. */
    private static long cgroupMax() {
        try {
            return cgroupLimit(Files.readString(Path.of("/proc/self/cgroup")), Path.of("/sys/fs/cgroup"));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The lowest memory limit of the group that {@code procSelfCgroup} (the text of
     * /proc/self/cgroup) names and of its parents, as a parent's limit holds for every group under
     * it: v2's memory.max where {@code root} is a v2 hierarchy, else v1's memory.limit_in_bytes
     * under root/memory (the root group's always counts: in a container it is the container's,
     * while the path printed may be the host's). 0 if none is set.
     */
    static long cgroupLimit(String procSelfCgroup, Path root) throws IOException {
        boolean v2 = Files.isReadable(root.resolve("cgroup.controllers"));
        for (String line : procSelfCgroup.split("\n")) {
            // "0::/the/group" is v2's line; v1's name their controllers: "4:memory:/the/group"
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            if (v2 && f[0].equals("0") && f[1].isEmpty()) {
                return lowest(root, f[2], "memory.max");
            }
            if (!v2 && Arrays.asList(f[1].split(",")).contains("memory")) {
                return lowest(root.resolve("memory"), f[2], "memory.limit_in_bytes");
            }
        }
        return v2 ? 0 : lowest(root.resolve("memory"), "/", "memory.limit_in_bytes");
    }

    /** The lowest limit in {@code file} from root/group up to root; "max" and v1's near-2^63 mean none. */
    private static long lowest(Path root, String group, String file) throws IOException {
        long lowest = 0;
        Path start = root.resolve(group.strip().replaceFirst("^/+", "")).normalize();
        for (Path dir = start.startsWith(root) ? start : root; dir != null && dir.startsWith(root); dir = dir.getParent()) {
            Path limit = dir.resolve(file);
            if (!Files.isReadable(limit)) {
                continue;
            }
            String text = Files.readString(limit).strip();
            long bytes = text.equals("max") ? 0 : Long.parseLong(text);
            if (bytes > 0 && bytes < 1L << 62 && (lowest == 0 || bytes < lowest)) {
                lowest = bytes;
            }
        }
        return lowest;
    }
}
