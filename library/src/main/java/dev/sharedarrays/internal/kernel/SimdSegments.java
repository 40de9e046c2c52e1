package dev.sharedarrays.internal.kernel;

import java.lang.foreign.MemorySegment;

/**
 * The rows the SIMD loops take: rows in native memory only. C2 compiles a Vector API load or
 * store of a segment to a SIMD instruction only for the segment class its call site has seen;
 * once a heap segment has reached a loop, that loop runs element by element in Java for every
 * row, native ones too: after {@code a > 0.5} and {@code +=} on 4096-element heap arrays,
 * {@code a > 0.5} on 16M native doubles took 5.9 instead of 4.6-4.8 ms, and a profile showed the
 * Vector API's fallbacks (DoubleVector.bTest, ByteVector.stLongOp) on the hot path. Process-local
 * arrays are native at every size (see LocalMemory); a heap row (a Java array's segment) takes
 * the scalar loops.
 */
final class SimdSegments {
    private SimdSegments() {
    }

    static boolean take(MemorySegment a) {
        return a.isNative();
    }

    static boolean take(MemorySegment a, MemorySegment b) {
        return a.isNative() && b.isNative();
    }

    static boolean take(MemorySegment a, MemorySegment b, MemorySegment c) {
        return a.isNative() && b.isNative() && c.isNative();
    }

    static boolean take(MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) {
        return a.isNative() && b.isNative() && c.isNative() && d.isNative();
    }
}
