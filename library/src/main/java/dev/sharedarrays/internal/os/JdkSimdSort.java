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
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The JDK's own vectorized quicksorts (x86-simd-sort, the library behind the Arrays.sort
 * intrinsic of JDK-8309130 and JDK-8319577), called on native memory. Arrays.sort reaches them
 * only through its Java dual-pivot recursion (2x slower on 16M doubles than one call); a direct
 * call sorts a shared or local segment in place, as fast as numpy's sort.
 *
 * <p>{@code libsimdsort} is not a JDK API, so an entry point is used only where it is known to
 * take {@code (void *array, int elemType, int from, int to)} on Linux x86_64 (later JDKs export
 * other entry points) and passes a self-check on a small array at first use:
 * {@code avx512_sort} sorts all four types on JDK 22 to 25 with AVX-512F/DQ;
 * {@code avx2_sort} sorts ints and floats only on JDK 23 to 25 with AVX2 (it aborts the process
 * on any other type code, so no other is ever passed to it). Where neither sorts a type,
 * {@link #sorts} is false and callers sort on the heap. The entry points must not see a NaN or a
 * -0.0: their min/max networks lose values around a NaN and may turn a -0.0 and a 0.0 into two
 * of one.
 */
public final class JdkSimdSort {
    /** The JVM's basic type codes ({@code classfile_constants.h}), which the entry points take. */
    public static final int FLOAT = 6;
    public static final int DOUBLE = 7;
    public static final int INT = 10;
    public static final int LONG = 11;

    /** System property that turns the native sort off ({@code false}). */
    static final String PROPERTY = "sharedarrays.jdkSimdSort";

    private static final List<String> FLAGS = flags();
    /** avx512_sort: every type above. */
    private static final MethodHandle WIDE = link("avx512_sort", 22, FLAGS.contains("avx512f") && FLAGS.contains("avx512dq"), DOUBLE, LONG, FLOAT, INT);
    /** avx2_sort: INT and FLOAT only. */
    private static final MethodHandle NARROW = WIDE != null ? null : link("avx2_sort", 23, FLAGS.contains("avx2"), FLOAT, INT);

    private JdkSimdSort() {
    }

    /** Whether {@link #sort} may be called for elements of the basic type elemType on this JVM and CPU. */
    public static boolean sorts(int elemType) {
        return handle(elemType) != null;
    }

    /**
     * Sorts elements [from, to) of s (native, elements of the basic type elemType, for which
     * {@link #sorts} is true) ascending. Floats must hold no NaN and no -0.0.
     */
    public static void sort(MemorySegment s, int elemType, int from, int to) {
        MethodHandle h = handle(elemType);
        if (h == null) {
            throw new IllegalArgumentException("no native sort for basic type " + elemType);
        }
        try {
            h.invokeExact(s, elemType, from, to);
        } catch (Throwable e) {
            throw new IllegalStateException("libsimdsort failed", e);
        }
    }

    private static MethodHandle handle(int elemType) {
        return switch (elemType) {
            case DOUBLE, LONG -> WIDE;
            case FLOAT, INT -> WIDE != null ? WIDE : NARROW;
            default -> null;
        };
    }

    /** The flags of the first processor where a libsimdsort entry point may be linked, else none. */
    private static List<String> flags() {
        String arch = System.getProperty("os.arch");
        if ("false".equals(System.getProperty(PROPERTY, "true")) || Runtime.version().feature() > 25
                || !System.getProperty("os.name").equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return List.of();
        }
        // the kernel lists avx flags only where it saves the registers' state too
        return CpuInfo.flags(CpuInfo.first());
    }

    /** The entry point name, checked on each of types, where this JDK and cpu may have it. */
    private static MethodHandle link(String name, int fromFeature, boolean cpu, int... types) {
        if (!cpu || Runtime.version().feature() < fromFeature) {
            return null;
        }
        try {
            Path lib = Path.of(System.getProperty("java.home"), "lib", "libsimdsort.so");
            if (Files.isRegularFile(lib)) {
                SymbolLookup l = SymbolLookup.libraryLookup(lib, Arena.global());
                // a later library's entry points mean a different calling convention
                Optional<MemorySegment> entry = l.find(name);
                if (entry.isPresent() && l.find("simdsort_link").isEmpty()) {
                    MethodHandle h = Linker.nativeLinker().downcallHandle(entry.get(),
                            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
                    for (int type : types) {
                        if (!selfCheck(h, type)) {
                            return null;
                        }
                    }
                    return h;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
        return null;
    }

    /**
     * Sorts a small reversed array of both signs (where ints and floats order apart): a library that
     * ignores the type code or the range fails it.
     */
    private static boolean selfCheck(MethodHandle h, int type) {
        int n = 300;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate((n + 2L) * (type == DOUBLE || type == LONG ? 8 : 4), 8);
            for (int i = 0; i < n + 2; i++) {
                set(s, type, i, n - 2 * i + 1);
            }
            try {
                h.invokeExact(s, type, 1, n + 1);
            } catch (Throwable e) {
                return false;
            }
            if (get(s, type, 0) != n + 1 || get(s, type, n + 1) != -n - 1) {
                return false;
            }
            for (int i = 1; i <= n; i++) {
                if (get(s, type, i) != 2 * i - n - 1) {
                    return false;
                }
            }
            return true;
        }
    }

    private static void set(MemorySegment s, int type, int i, int v) {
        switch (type) {
            case DOUBLE -> s.setAtIndex(JAVA_DOUBLE, i, v);
            case LONG -> s.setAtIndex(JAVA_LONG, i, v);
            case FLOAT -> s.setAtIndex(JAVA_FLOAT, i, v);
            default -> s.setAtIndex(JAVA_INT, i, v);
        }
    }

    private static long get(MemorySegment s, int type, int i) {
        return switch (type) {
            case DOUBLE -> (long) s.getAtIndex(JAVA_DOUBLE, i);
            case LONG -> s.getAtIndex(JAVA_LONG, i);
            case FLOAT -> (long) s.getAtIndex(JAVA_FLOAT, i);
            default -> s.getAtIndex(JAVA_INT, i);
        };
    }
}
