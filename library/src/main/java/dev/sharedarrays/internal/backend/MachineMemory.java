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

    /** The memory limit of this process's cgroup (v2's memory.max, else v1's, as a container sees it); 0 if none or unknown. */
    private static long cgroupMax() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                // "0::/the/group" is cgroup v2's line
                Path v2 = line.startsWith("0::") ? Path.of("/sys/fs/cgroup" + line.substring(3), "memory.max") : null;
                if (v2 != null && Files.isReadable(v2)) {
                    String text = Files.readString(v2).strip();
                    return text.equals("max") ? 0 : Long.parseLong(text);
                }
            }
            Path v1 = Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes");
            // no limit reads as a huge number, which the caller's minimum ignores
            return Files.isReadable(v1) ? Long.parseLong(Files.readString(v1).strip()) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
