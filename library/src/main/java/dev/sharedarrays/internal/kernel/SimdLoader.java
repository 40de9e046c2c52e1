package dev.sharedarrays.internal.kernel;

/**
 * Loads an optional SIMD implementation (a class on the incubating Vector API) only when the JVM
 * runs with {@code --add-modules jdk.incubator.vector}; without the module, or if the class does
 * not link or initialise on this JVM, the callers run their scalar loops.
 */
final class SimdLoader {
    private SimdLoader() {
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
