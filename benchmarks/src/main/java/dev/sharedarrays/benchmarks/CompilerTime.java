package dev.sharedarrays.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time the JIT compiler threads of other JVMs use, read from /proc (Linux): a benchmark whose
 * figures come from child JVMs waits until their compilers are quiet, as one JVM waits on its own
 * CompilationMXBean. Compiler threads come and go (the JVM starts and ends them as its queue
 * grows and empties), so each thread's time is kept by its id and only what it added counts.
 */
final class CompilerTime {
    /** Clock ticks a second of /proc's utime and stime (USER_HZ, 100 on Linux). */
    private static final long TICKS_PER_SECOND = 100;

    private final long[] pids;
    private final Map<String, Long> seen = new HashMap<>();

    CompilerTime(long... pids) {
        this.pids = pids;
        added();
    }

    /** Milliseconds of CPU the "C1/C2 CompilerThread" threads of the processes used since the last call (or since made). */
    long added() {
        long ticks = 0;
        for (long pid : pids) {
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path t : tasks) {
                    long now = compilerTicks(t);
                    if (now > 0) {
                        Long before = seen.put(pid + "/" + t.getFileName(), now);
                        ticks += now - (before == null ? 0 : before);
                    }
                }
            } catch (IOException | SecurityException e) {
                // gone, or not Linux: counts as quiet
            }
        }
        return ticks * 1000 / TICKS_PER_SECOND;
    }

    private static long compilerTicks(Path task) {
        try {
            if (!Files.readString(task.resolve("comm")).matches("C[12] CompilerThre.*\\s*")) {
                return 0;
            }
            String stat = Files.readString(task.resolve("stat"));
            // after "(comm)": state is field 3, utime 14 and stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return 0; // the thread ended
        }
    }
}
