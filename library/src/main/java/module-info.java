/**
 * Typed N-dimensional arrays in shared memory. Only {@code dev.sharedarrays} is API;
 * {@code dev.sharedarrays.internal} holds the OS calls and memory layouts.
 */
module dev.sharedarrays {
    exports dev.sharedarrays;
    // SIMD loops when the JVM runs with --add-modules jdk.incubator.vector; scalar loops otherwise
    requires static jdk.incubator.vector;
}
