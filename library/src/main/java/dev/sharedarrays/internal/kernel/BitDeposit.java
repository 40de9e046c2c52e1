package dev.sharedarrays.internal.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Whether {@link Long#expand} is one fast instruction on this CPU. The JIT compiles it to BMI2's
 * pdep where the CPU has BMI2; AMD's Zen 1 and Zen 2 (family 0x17) and Hygon's Dhyana (0x18) run
 * pdep in microcode, tens of cycles each, where Intel's and later AMD's take about 3. Unknown
 * (no /proc/cpuinfo, another architecture): not fast. {@code -Dsharedarrays.bitDeposit=false}
 * says not fast anywhere (the tests run the other loops so; a CPU misjudged here can too).
 */
final class BitDeposit {
    static final boolean FAST = fast();

    private BitDeposit() {
    }

    private static boolean fast() {
        String arch = System.getProperty("os.arch");
        if ("false".equals(System.getProperty("sharedarrays.bitDeposit")) || !arch.equals("amd64") && !arch.equals("x86_64")) {
            return false;
        }
        try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            Map<String, String> cpu = lines.takeWhile(line -> !line.isBlank()).filter(line -> line.contains(":"))
                    .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(':')).trim(),
                            line -> line.substring(line.indexOf(':') + 1).trim(), (x, y) -> x));
            return fast(cpu.getOrDefault("vendor_id", ""), cpu.getOrDefault("cpu family", ""),
                    List.of(cpu.getOrDefault("flags", "").split("\\s+")));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** From /proc/cpuinfo's vendor_id, cpu family (decimal) and flags. */
    static boolean fast(String vendor, String family, List<String> flags) {
        if (!flags.contains("bmi2")) {
            return false;
        }
        int f;
        try {
            f = Integer.parseInt(family);
        } catch (NumberFormatException e) {
            return false;
        }
        return switch (vendor) {
            case "AuthenticAMD" -> f >= 0x19;
            case "HygonGenuine" -> false;
            default -> true;
        };
    }
}
