package dev.sharedarrays.internal.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Why every SIMD loop method (SimdKernelLoops, SimdMaskLoops, SimdMathLoops) calls {@link #touch()}
 * first: HotSpot turns a memory fault in compiled code (SIGBUS: another process truncated the
 * file of a shm or file array under the mapping) into an {@link InternalError} only in a
 * compiled method marked as making unsafe accesses. C2 marks a method when it inlines a scalar
 * access of off-heap memory, but not for the Vector API's loads and stores, so a fault in a loop
 * with only those crashed the JVM. One scalar read, inlined into the loop's method, marks it:
 * the fault then becomes the InternalError that {@code Locking} turns into a
 * {@link dev.sharedarrays.SegmentTruncatedException} (after the loop has run over the rest of
 * the row, each vector access faulting). A loop compiled on stack replacement, during its first
 * long call, starts past the read and stays unmarked.
 */
final class FaultMark {
    private static final MemorySegment WORD = Arena.global().allocate(8);

    private FaultMark() {
    }

    /** A scalar read of a word of our own, small enough that C2 always inlines it; costs a load. */
    static void touch() {
        WORD.get(ValueLayout.JAVA_BYTE, 0);
    }
}
