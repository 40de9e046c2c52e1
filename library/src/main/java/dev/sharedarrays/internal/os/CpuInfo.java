package dev.sharedarrays.internal.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The first processor's entries of /proc/cpuinfo (vendor_id, cpu family, flags, ...). */
public final class CpuInfo {
    private CpuInfo() {
    }

    /** This machine's first processor; empty where /proc/cpuinfo cannot be read. */
    public static Map<String, String> first() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return parse(lines);
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    /** The entries of the first block of lines ("key : value"), up to its blank line; the first of a repeated key. */
    static Map<String, String> parse(Stream<String> lines) {
        return lines.takeWhile(line -> !line.isBlank()).filter(line -> line.contains(":"))
                .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(':')).trim(),
                        line -> line.substring(line.indexOf(':') + 1).trim(), (x, y) -> x));
    }

    /** The flags of an entry map from {@link #first}. */
    public static List<String> flags(Map<String, String> cpu) {
        String f = cpu.getOrDefault("flags", "").trim();
        return f.isEmpty() ? List.of() : List.of(f.split("\\s+"));
    }
}
