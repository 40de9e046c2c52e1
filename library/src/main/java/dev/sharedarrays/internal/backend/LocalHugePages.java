package dev.sharedarrays.internal.backend;

import dev.sharedarrays.internal.os.Env;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a fresh process-local mapping asks for transparent huge pages (MADV_HUGEPAGE): only
 * with {@code SHARED_ARRAYS_LOCAL_HUGE_PAGES=1}, THP "madvise", and free blocks of 2 MiB or more
 * in {@code /proc/buddyinfo} for twice the mapping plus {@link #SPARE} (so no fault compacts).
 * Where the 2 MiB blocks were touched lately a fresh 128 MiB result faults in ~10 ms instead of
 * ~48 ms in 4 KiB pages (numpy advises its arrays of 4 MiB or more). Off by default: on the
 * build machine (a VM whose host backs guest memory on first touch) blocks not touched lately
 * cost ~300 ms per 128 MiB, with no compaction at all (compact_stall stayed 0); 4 KiB pages come
 * from lists of recently freed pages and do not pay that.
 */
final class LocalHugePages {
    static final String ENV = "SHARED_ARRAYS_LOCAL_HUGE_PAGES";
    /** Mappings from this length on are advised, as numpy advises its arrays of 4 MiB or more. */
    static final long MIN_LENGTH = 4L << 20;
    /** The length huge mappings are rounded up to: the kernel aligns a mapping of a multiple of it. */
    static final long PMD = pmdSize();
    /** Free huge blocks left to others beyond twice the mapping. */
    private static final long SPARE = 256L << 20;
    private static final boolean MADVISE_MODE = madviseMode();
    private static final int PMD_ORDER = Long.numberOfTrailingZeros(PMD) - 12;

    private LocalHugePages() {
    }

    /** True if a fresh mapping of {@code length} bytes should be advised now. */
    static boolean advise(long length) {
        return length >= MIN_LENGTH && MADVISE_MODE && "1".equals(Env.get(ENV)) && freeHugeBytes() >= 2 * length + SPARE;
    }

    /** Bytes in free blocks of at least the huge page size, over all zones; 0 if unknown. */
    static long freeHugeBytes() {
        String text;
        try {
            text = Files.readString(Path.of("/proc/buddyinfo"));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        long blocks = 0;
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // "Node 0, zone Normal c0 c1 ... c10": counts of free blocks of 2^order pages
            for (int order = PMD_ORDER; order + 4 < f.length; order++) {
                try {
                    blocks += Long.parseLong(f[order + 4]) << (order - PMD_ORDER);
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return blocks * PMD;
    }

    private static boolean madviseMode() {
        try {
            return Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled")).contains("[madvise]");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long pmdSize() {
        try {
            long s = Long.parseLong(Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")).strip());
            return Long.bitCount(s) == 1 && s >= (64L << 10) ? s : 2L << 20;
        } catch (IOException | RuntimeException e) {
            return 2L << 20;
        }
    }
}
