package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.os.Env;
import dev.sharedarrays.internal.segment.OutOfLineAccess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The opt-in split of an element-wise kernel over several threads: with {@code SHARED_ARRAYS_THREADS}
 * (or {@link #with} around a call) above 1, a kernel whose operands are all contiguous, of one
 * shape and at least {@link #MIN_ELEMENTS} elements runs on that many equal contiguous parts at
 * once, each part on the single-thread kernel; otherwise it runs whole, on the caller's thread.
 * The caller holds the arrays' locks for all parts. A fault in a part (a file shrunk under its
 * mapping) is delivered in that part's thread and rethrown to the caller as it was, inside the
 * caller's guard.
 */
public final class Parallel {
    /** Below this, a thread's start-up and the hand-over cost more than the part saves. */
    public static final long MIN_ELEMENTS = 1L << 20;
    /** Parts start at multiples of this many elements: whole cache lines, whole 64-element mask blocks. */
    private static final long ALIGN = 4096;
    private static final int MAX_THREADS = 256;
    private static final ThreadLocal<Integer> OVERRIDE = new ThreadLocal<>();
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sharedarrays-kernel");
        t.setDaemon(true);
        return t;
    });

    private Parallel() {
    }

    /** The threads a kernel may use on this thread now: {@link #with}'s, else SHARED_ARRAYS_THREADS's, else 1. */
    public static int threads() {
        Integer t = OVERRIDE.get();
        if (t != null) {
            return t;
        }
        String env = Env.get("SHARED_ARRAYS_THREADS");
        if (env == null) {
            return 1;
        }
        try {
            return check(Integer.parseInt(env));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("SHARED_ARRAYS_THREADS=" + env + ": want a whole number from 1 to " + MAX_THREADS, e);
        }
    }

    /** Runs body with threads as the kernels' thread count on this thread. */
    public static <R> R with(int threads, Supplier<R> body) {
        check(threads);
        Integer before = OVERRIDE.get();
        OVERRIDE.set(threads);
        try {
            return body.get();
        } finally {
            if (before == null) {
                OVERRIDE.remove();
            } else {
                OVERRIDE.set(before);
            }
        }
    }

    private static int check(int threads) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("a thread count must be from 1 to " + MAX_THREADS + ", not " + threads);
        }
        return threads;
    }

    /**
     * body on the layouts whole, or on parts of them at once: each call gets one part of every
     * layout, the same elements of each (the layouts must describe one element-wise operation).
     */
    public static void split(StridedLayout[] layouts, Consumer<StridedLayout[]> body) {
        map(layouts, part -> {
            body.accept(part);
            return null;
        });
    }

    /** body's result on the layouts whole (a list of one), or on each part in their order, as {@link #split}. */
    @SuppressWarnings("unchecked")
    public static <R> List<R> map(StridedLayout[] layouts, Function<StridedLayout[], R> body) {
        int parts = parts(layouts);
        if (parts < 2) {
            return Collections.singletonList(body.apply(layouts));
        }
        long n = layouts[0].size();
        long step = (n / parts + ALIGN - 1) / ALIGN * ALIGN;
        Object[] results = new Object[(int) ((n + step - 1) / step)];
        each(results.length, i -> {
            long start = i * step;
            results[i] = body.apply(part(layouts, start, Math.min(step, n - start)));
        });
        return (List<R>) Arrays.asList(results);
    }

    /**
     * Runs part(0) .. part(parts - 1) at once, part 0 on this thread; rethrows the first failure
     * (later ones suppressed in it) after all have ended.
     */
    public static void each(int parts, IntConsumer part) {
        List<Future<Throwable>> running = new ArrayList<>(parts - 1);
        for (int i = 1; i < parts; i++) {
            int k = i;
            running.add(POOL.submit(() -> {
                try {
                    part.accept(k);
                    OutOfLineAccess.poll(); // a fault of this part's accesses is delivered here, not in a later task
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }));
        }
        Throwable failed = null;
        try {
            part.accept(0);
        } catch (Throwable t) {
            failed = t;
        }
        for (Future<Throwable> f : running) {
            Throwable t;
            try {
                t = getUninterruptibly(f);
            } catch (Throwable e) {
                t = e;
            }
            if (t != null && failed == null) {
                failed = t;
            } else if (t != null && t != failed) {
                failed.addSuppressed(t);
            }
        }
        if (failed instanceof RuntimeException e) {
            throw e;
        }
        if (failed instanceof Error e) {
            throw e;
        }
        if (failed != null) {
            throw new IllegalStateException(failed);
        }
    }

    /** How many parts: 1 unless every layout is contiguous, of one shape, and big enough for two. */
    private static int parts(StridedLayout[] layouts) {
        if (layouts[0].size() < MIN_ELEMENTS) {
            return 1;
        }
        int threads = threads();
        if (threads < 2) {
            return 1;
        }
        for (StridedLayout l : layouts) {
            if (!l.isContiguous() || !Arrays.equals(l.shape(), layouts[0].shape())) {
                return 1;
            }
        }
        return (int) Math.min(threads, layouts[0].size() / (MIN_ELEMENTS / 2));
    }

    /** Elements [start, start + length) of each contiguous layout, as 1-d layouts. */
    private static StridedLayout[] part(StridedLayout[] layouts, long start, long length) {
        StridedLayout[] out = new StridedLayout[layouts.length];
        for (int i = 0; i < layouts.length; i++) {
            out[i] = new StridedLayout(layouts[i].offset() + start, new long[] {length}, new long[] {1});
        }
        return out;
    }

    /** The part's outcome; the caller's interrupt is kept for after every part has finished (they write its arrays). */
    private static Throwable getUninterruptibly(Future<Throwable> f) throws Exception {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
