package dev.sharedarrays.internal.kernel;

/**
 * The SIMD loops' one switch and their loader. A SIMD implementation (a class on the incubating
 * Vector API) loads only when the JVM runs with {@code --add-modules jdk.incubator.vector}; without
 * the module, or if the class does not link or initialise on this JVM, or with the switch off, the
 * callers run their scalar loops.
 */
public final class Simd {
    private static volatile boolean on = true;

    private Simd() {
    }

    /** True unless a test switched the SIMD loops off. */
    static boolean on() {
        return on;
    }

    /** True if the SIMD loops run: the switch is on and the JVM has the Vector API. */
    public static boolean running() {
        return on && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /** Tests switch every SIMD loop off to check the scalar ones; returns the previous setting. */
    public static boolean use(boolean on) {
        boolean before = Simd.on;
        Simd.on = on;
        return before;
    }

    /** An instance of className as type, or null. */
    static <T> T load(Class<T> type, String className) {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return null;
        }
        try {
            return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}
