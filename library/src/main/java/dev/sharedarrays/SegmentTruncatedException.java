package dev.sharedarrays;

import java.nio.file.Path;

/**
 * The file of a shm or file array is shorter than this process mapped: another process of the
 * same user shrank it (truncate, {@code ftruncate}, {@code os.truncate}) after this process
 * created or attached the array. Its memory beyond the new end is gone; close the array.
 *
 * <p>No mapping of a shm or file segment can prevent this: any process that may open the file
 * may shrink it. Only the memfd backend is immune: its memory is sealed against shrinking
 * ({@code F_SEAL_SHRINK}). Bulk operations check the size before they touch the memory; element
 * accesses, kernels (scalar and SIMD) and the words of queues, pools and barriers that fault are
 * reported with this exception. Two races can still crash the JVM, as the JDK cannot recover
 * from a fault there: a shrink that lands between the load and the atomic instruction of an
 * atomic operation (a lock word, {@code compareAndSet}, a queue's or pool's words) that the JIT
 * has not compiled yet (every atomic loads its word first, so a file already shrunk is found by
 * the load), and a SIMD loop (sum, min and max, arithmetic, comparisons) that the JIT has not
 * compiled normally yet: while the loop runs in the interpreter, or during its first long call
 * (compiled on stack replacement), the vector loads and stores it calls are compiled on their own,
 * without the mark that turns a fault into this exception (seen: a pool slot summed by an
 * interpreted loop, 2 JVMs in 64 truncations). Both windows close once the JIT has compiled the
 * code that runs (a process's first calls of each operation).
 */
public final class SegmentTruncatedException extends SharedArrayException {
    private static final long serialVersionUID = 1L;
    private final transient Path path;
    private final long expectedSize;
    private final long actualSize;

    /**
     * @param path         the file that shrank
     * @param expectedSize the bytes this process mapped
     * @param actualSize   the bytes the file has now (at least {@code expectedSize} if it grew back
     *                     after the access that faulted)
     * @param cause        the JDK's fault of the access, or null if a size check found it
     */
    public SegmentTruncatedException(Path path, long expectedSize, long actualSize, Throwable cause) {
        super(path + " is " + actualSize + " bytes, but this process mapped " + expectedSize + " bytes of it"
                + (actualSize >= expectedSize ? " (it was shrunk during the access and has grown back since)" : "")
                + ": another process of this user truncated the file under the array. Its memory past the new end is gone;"
                + " close the array. Shm and file arrays can be truncated by any process of the same user;"
                + " only the memfd backend is immune (it is sealed against shrinking)", cause);
        this.path = path;
        this.expectedSize = expectedSize;
        this.actualSize = actualSize;
    }

    /** The file that shrank. */
    public Path path() {
        return path;
    }

    /** Bytes of the file this process mapped. */
    public long expectedSize() {
        return expectedSize;
    }

    /** Bytes the file had when the truncation was found. */
    public long actualSize() {
        return actualSize;
    }
}
