package dev.sharedarrays.internal.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The JDK's own AVX-512 quicksort (x86-simd-sort, the library behind the Arrays.sort intrinsic
 * of JDK-8309130), called on native memory. Arrays.sort reaches it only through its Java
 * dual-pivot recursion (2x slower on 16M doubles than one call); a direct call sorts a
 * shared or local segment in place, as fast as numpy's sort.
 *
 * <p>{@code libsimdsort} is not a JDK API, so it is used only where it is known to take
 * {@code avx512_sort(void *array, int elemType, int from, int to)}: Linux x86_64 JDK 22 to 25
 * (later JDKs export other entry points), a CPU and kernel with AVX-512F/DQ, and a self-check on
 * a small array at first use. Anywhere else {@link #available()} is false and callers sort on
 * the heap. The entry point must not see a NaN or a -0.0: its min/max networks lose values
 * around a NaN and may turn a -0.0 and a 0.0 into two of one.
 */
public final class JdkSimdSort {
    /** The JVM's basic type codes ({@code classfile_constants.h}), which the entry point takes. */
    public static final int FLOAT = 6;
    public static final int DOUBLE = 7;
    public static final int INT = 10;
    public static final int LONG = 11;

    /** System property that turns the native sort off ({@code false}). */
    static final String PROPERTY = "sharedarrays.jdkSimdSort";

    private static final MethodHandle SORT = link();

    private JdkSimdSort() {
    }

    /** Whether {@link #sort} may be called on this JVM and CPU. */
    public static boolean available() {
        return SORT != null;
    }

    /**
     * Sorts elements [from, to) of s (native, elements of the basic type elemType) ascending.
     * Floats must hold no NaN and no -0.0.
     */
    public static void sort(MemorySegment s, int elemType, int from, int to) {
        try {
            SORT.invokeExact(s, elemType, from, to);
        } catch (Throwable e) {
            throw new IllegalStateException("libsimdsort avx512_sort failed", e);
        }
    }

    private static MethodHandle link() {
        if (!"false".equals(System.getProperty(PROPERTY, "true")) && supportedPlatform()) {
            try {
                Path lib = Path.of(System.getProperty("java.home"), "lib", "libsimdsort.so");
                if (Files.isRegularFile(lib)) {
                    SymbolLookup l = SymbolLookup.libraryLookup(lib, Arena.global());
                    // a later library's entry points mean a different calling convention
                    Optional<MemorySegment> entry = l.find("avx512_sort");
                    if (entry.isPresent() && l.find("simdsort_link").isEmpty()) {
                        MethodHandle h = Linker.nativeLinker().downcallHandle(entry.get(),
                                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
                        return selfCheck(h) ? h : null;
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }
        return null;
    }

    private static boolean supportedPlatform() {
        int feature = Runtime.version().feature();
        String arch = System.getProperty("os.arch");
        if (feature < 22 || feature > 25 || !System.getProperty("os.name").equals("Linux")
                || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return false;
        }
        // the kernel lists avx512 flags only where it saves the ZMM state too
        List<String> flags = CpuInfo.flags(CpuInfo.first());
        return flags.contains("avx512f") && flags.contains("avx512dq");
    }

    /** Sorts a small reversed array: a library that ignores the type code or the range fails it. */
    private static boolean selfCheck(MethodHandle h) {
        int n = 300;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(JAVA_DOUBLE, n + 2);
            for (int i = 0; i < n + 2; i++) {
                s.setAtIndex(JAVA_DOUBLE, i, n - i + 0.5);
            }
            try {
                h.invokeExact(s, DOUBLE, 1, n + 1);
            } catch (Throwable e) {
                return false;
            }
            if (s.getAtIndex(JAVA_DOUBLE, 0) != n + 0.5 || s.getAtIndex(JAVA_DOUBLE, n + 1) != -0.5) {
                return false;
            }
            for (int i = 1; i <= n; i++) {
                if (s.getAtIndex(JAVA_DOUBLE, i) != i - 0.5) {
                    return false;
                }
            }
            return true;
        }
    }
}
