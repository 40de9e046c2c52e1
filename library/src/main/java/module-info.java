/**
 * Typed N-dimensional arrays in shared memory. Only {@code dev.sharedarrays} is API. The
 * {@code dev.sharedarrays.internal.*} packages are not exported: {@code os} (every downcall,
 * processes, units), {@code segment} (the segment descriptor, control block, registry, directory
 * scans), {@code backend} (one class per backend, selection), {@code sync} (lock and barrier
 * protocols), {@code array} (strided layouts, element codecs, copies, reductions), {@code io}
 * (.npy files), {@code kernel} (the element-type table, operations, generated loops) and
 * {@code render} (the pictures of toPng). {@code dev.sharedarrays.cli} is the command line. The
 * docs/ARCHITECTURE.md lists them with their layers; PackageCyclesTest and LayeringTest check them.
 */
module dev.sharedarrays {
    exports dev.sharedarrays;
    // bin/sharedarrays's commands from other modules (the bridge's serve)
    uses dev.sharedarrays.cli.CliCommand;
    // SIMD loops when the JVM runs with --add-modules jdk.incubator.vector; scalar loops otherwise
    requires static jdk.incubator.vector;
    // toPng only: the pictures are drawn with java.awt and encoded with javax.imageio; a runtime
    // without java.desktop (a jlink image) runs everything else, and toPng says what it lacks
    requires static java.desktop;
}
