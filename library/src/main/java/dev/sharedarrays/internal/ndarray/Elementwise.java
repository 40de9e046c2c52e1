package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.internal.array.Locking;
import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import java.util.function.Supplier;

/**
 * What the element-wise operations that make new arrays share (arithmetic, comparisons, logic,
 * where, masked copies): the broadcast of their operands, and the locks of several arrays taken
 * in the order of array id (as {@code x += y} takes its two), so that no two operations in two
 * processes wait for each other.
 */
public final class Elementwise {
    private Elementwise() {
    }

    /**
     * numpy's broadcast of several shapes.
     *
     * @throws ShapeMismatchException naming two shapes that do not broadcast
     */
    public static long[] broadcast(long[] first, long[]... more) {
        long[] out = first;
        for (long[] s : more) {
            out = Shapes.broadcast(out, s);
        }
        return out;
    }

    /** A one-element value repeated over shape: stride 0 on every axis. */
    public static StridedLayout repeated(long[] shape) {
        return new StridedLayout(0, shape.clone(), new long[shape.length]);
    }

    /** Runs body holding the read locks of arrays, taken in the order of array id (each array once). */
    public static <R> R reading(Supplier<R> body, ArrayCore... arrays) {
        return locked(null, body, arrays);
    }

    /**
     * Runs body holding target's write lock and the read locks of the others, taken in the order
     * of array id; an array that is target (or a view of it) is not read-locked again.
     */
    public static void writing(ArrayCore target, Runnable body, ArrayCore... reads) {
        locked(target, () -> {
            body.run();
            return null;
        }, reads);
    }

    private static <R> R locked(ArrayCore target, Supplier<R> body, ArrayCore[] reads) {
        int first = target != null ? 1 : 0;
        Locking[] all = new Locking[first + reads.length];
        if (target != null) {
            all[0] = target.locks();
        }
        for (int i = 0; i < reads.length; i++) {
            all[first + i] = reads[i].locks();
        }
        return Locking.locked(target != null, body, all);
    }
}
