package dev.sharedarrays.internal.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
            long v2 = cgroupV2Max(Files.readString(Path.of("/proc/self/cgroup")), Path.of("/sys/fs/cgroup"));
            if (v2 >= 0) {
                return v2;
            }
            Path v1 = Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes");
            // no limit reads as a huge number, which the caller's minimum ignores
            return Files.isReadable(v1) ? Long.parseLong(Files.readString(v1).strip()) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The lowest memory.max of the v2 group that {@code procSelfCgroup} (the text of
     * /proc/self/cgroup) names and of its parents up to {@code root}, as a parent's limit holds
     * for every group under it; 0 if none sets one; -1 if there is no v2 group (v1 only).
     */
    static long cgroupV2Max(String procSelfCgroup, Path root) throws IOException {
        for (String line : procSelfCgroup.split("\n")) {
            // "0::/the/group" is cgroup v2's line
            if (!line.startsWith("0::/")) {
                continue;
            }
            long lowest = 0;
            boolean seen = false;
            for (Path group = root.resolve(line.substring(4).strip()).normalize(); group != null && group.startsWith(root); group = group.getParent()) {
                Path max = group.resolve("memory.max");
                if (Files.isReadable(max)) {
                    seen = true;
                    String text = Files.readString(max).strip();
                    long limit = text.equals("max") ? 0 : Long.parseLong(text);
                    if (limit > 0 && (lowest == 0 || limit < lowest)) {
                        lowest = limit;
                    }
                }
            }
            return seen || Files.isReadable(root.resolve("cgroup.controllers")) ? lowest : -1;
        }
        return -1;
    }
}
