package dev.sharedarrays.benchmarks;

import dev.sharedarrays.internal.backend.Backends;

/**
 * Warm-up to a loop's steady state. Dropped results of more than 256 KiB are mappings that only
 * a collection frees: until the library first asks for one, each is a fresh mapping faulted in
 * page by page; from then on, freed ones are reused, as malloc reuses numpy's. The first
 * collection comes early (the room it allows counted the operands too), so the loop's last fresh
 * mappings come before the second.
 */
final class WarmUp {
    /** Calls before the timed ones at least, for the JIT (the ops bench's). */
    static final int CALLS = 5;
    /** A bound, should no collection come. */
    private static final int MAX_CALLS = 500;

    private WarmUp() {
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
