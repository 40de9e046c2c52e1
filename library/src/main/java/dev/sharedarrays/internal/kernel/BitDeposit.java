package dev.sharedarrays.internal.kernel;

import dev.sharedarrays.internal.os.CpuInfo;
import java.util.List;
import java.util.Map;

/**
 * Whether {@link Long#expand} is one fast instruction on this CPU, and 8 mask bits as 8 bytes
 * either way ({@link #bytes}). The JIT compiles it to BMI2's pdep where the CPU has BMI2; AMD
 * before Zen 3 (family 0x19) and Hygon run pdep in microcode, tens of cycles each, where Intel's
 * and Zen 3's take about 3. Any other vendor, or no /proc/cpuinfo: not fast. {@value #PROPERTY}
 * {@code =true} or {@code =false} decides instead (the tests run both loops so; a CPU misjudged
 * here can be set right).
 */
public final class BitDeposit {
    /** The system property that overrides the CPU's entry. */
    public static final String PROPERTY = "sharedarrays.bitDeposit";
    public static final boolean FAST = fast();
    /** The lowest bit of each byte. */
    private static final long BYTE_BITS = 0x0101010101010101L;
    /** Entry b: bit k of b as byte k, 0 or 1. */
    private static final long[] BYTES = bytesTable();

    private BitDeposit() {
    }

    /**
     * The low 8 bits of {@code bits} as 8 bytes 0 or 1, byte k from bit k (the mask of 8
     * comparisons as numpy's bools): a pdep where {@link #FAST}, else a load from a table of 256.
     * C2 folds the test away.
     */
    public static long bytes(long bits) {
        return FAST ? Long.expand(bits, BYTE_BITS) : table(bits);
    }

    /** {@link #bytes} by the table, whatever {@link #FAST} says (the tests check both ways on any CPU). */
    static long table(long bits) {
        return BYTES[(int) bits & 0xFF];
    }

    private static long[] bytesTable() {
        long[] t = new long[256];
        for (int b = 0; b < 256; b++) {
            t[b] = Long.expand(b, BYTE_BITS);
        }
        return t;
    }

    private static boolean fast() {
        String forced = System.getProperty(PROPERTY);
        if (forced != null) {
            return Boolean.parseBoolean(forced);
        }
        String arch = System.getProperty("os.arch");
        if (!(arch.equals("amd64") || arch.equals("x86_64"))) {
            return false;
        }
        Map<String, String> cpu = CpuInfo.first();
        return fast(cpu.getOrDefault("vendor_id", ""), cpu.getOrDefault("cpu family", ""), CpuInfo.flags(cpu));
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
            case "GenuineIntel" -> true;
            case "AuthenticAMD" -> f >= 0x19;
            default -> false;
        };
    }
}
