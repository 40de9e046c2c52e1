/**
 * Typed N-dimensional arrays in shared memory. Only {@code dev.sharedarrays} is API;
 * {@code dev.sharedarrays.internal} holds the OS calls and memory layouts.
 */
module dev.sharedarrays {
    exports dev.sharedarrays;
}
