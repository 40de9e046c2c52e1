package dev.sharedarrays.benchmarks;

import dev.sharedarrays.internal.backend.Backends;

/**
 * Warm-up to a loop's steady state. The Java code around a kernel (dispatch, locks, the result's
 * memory) is compiled by C2 only after thousands of calls, so a row first runs its operation
 * {@link #PATH_CALLS} times on views of the first elements of its arrays ({@link #path}), as a
 * program that runs it often has: {@code a > 0.5} on 16M doubles took 1.13x numpy after its
 * warm-up calls alone, 1.02-1.05x after 10,000 calls on smaller arrays first.
 *
 * <p>Dropped results of more than 256 KiB are mappings that only a collection frees: until the
 * library first asks for one, each is a fresh mapping faulted in page by page; from then on, freed
 * ones are reused, as malloc reuses numpy's. The first collection comes early (the room it allows
 * counted the operands too), so the loop's last fresh mappings come before the second.
 */
final class WarmUp {
    /** Calls before the timed ones at least, for the JIT (the ops bench's). */
    static final int CALLS = 5;
    /** Calls on views before a row, for C2 to compile the code around the kernel (its threshold is ~5,000 calls). */
    static final int PATH_CALLS = 10_000;
    /** Elements of the views those calls run on: results of more bytes than 256 KiB, mappings as the full ones are. */
    static final long PATH_ELEMENTS = 300_000;
    /** A bound on the time of those calls. */
    private static final long PATH_NANOS = 3_000_000_000L;
    /** A bound, should no collection come. */
    private static final int MAX_CALLS = 500;

    private WarmUp() {
    }

    /** Runs {@code op} (the row's operation on views) {@link #PATH_CALLS} times, or for {@link #PATH_NANOS} at most. */
    static void path(Runnable op) {
        long start = System.nanoTime();
        for (int i = 0; i < PATH_CALLS && System.nanoTime() - start < PATH_NANOS; i++) {
            op.run();
        }
    }

    /**
     * Runs {@code op} {@code atLeast} times; if {@code dropsMappings}, also until the library has
     * asked for two collections since the first call, and once more. Returns the number of calls, for numpy's warm-up.
     */
    static int run(Runnable op, int atLeast, boolean dropsMappings) {
        long start = Backends.localCollections();
        int calls = 0;
        while (calls < atLeast || dropsMappings && Backends.localCollections() < start + 2 && calls < MAX_CALLS) {
            op.run();
            calls++;
        }
        if (dropsMappings) {
            op.run();
            calls++;
        }
        return calls;
    }
}
