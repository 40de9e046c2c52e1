package dev.sharedarrays;

import dev.sharedarrays.internal.array.Shapes;
import dev.sharedarrays.internal.array.StridedLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the element-wise operations that make new arrays share (arithmetic, comparisons, logic,
 * where, masked copies): the broadcast of their operands, and the locks of several arrays taken
 * in the order of array id (as {@code x += y} takes its two), so that no two operations in two
 * processes wait for each other.
 */
final class Elementwise {
    private Elementwise() {
    }

    /**
     * numpy's broadcast of several shapes.
     *
     * @throws ShapeMismatchException naming two shapes that do not broadcast
     */
    static long[] broadcast(long[] first, long[]... more) {
        long[] out = first;
        for (long[] s : more) {
            out = Shapes.broadcast(out, s);
        }
        return out;
    }

    /** A one-element value repeated over shape: stride 0 on every axis. */
    static StridedLayout repeated(long[] shape) {
        return new StridedLayout(0, shape.clone(), new long[shape.length]);
    }

    /** Runs body holding the read locks of arrays, taken in the order of array id (each array once). */
    static <R> R reading(Supplier<R> body, SharedNDArray<?>... arrays) {
        return locked(null, body, arrays);
    }

    /**
     * Runs body holding target's write lock and the read locks of the others, taken in the order
     * of array id; an array that is target (or a view of it) is not read-locked again.
     */
    static void writing(SharedNDArray<?> target, Runnable body, SharedNDArray<?>... reads) {
        locked(target, () -> {
            body.run();
            return null;
        }, reads);
    }

    private static <R> R locked(SharedNDArray<?> target, Supplier<R> body, SharedNDArray<?>[] reads) {
        List<SharedNDArray<?>> order = new ArrayList<>();
        if (target != null) {
            order.add(target);
        }
        for (SharedNDArray<?> a : reads) {
            if (order.stream().noneMatch(b -> b.id() == a.id())) {
                order.add(a);
            }
        }
        order.sort(Comparator.comparing(SharedNDArray::id, Long::compareUnsigned));
        return nest(order, 0, target, body);
    }

    private static <R> R nest(List<SharedNDArray<?>> order, int i, SharedNDArray<?> target, Supplier<R> body) {
        if (i == order.size()) {
            return body.get();
        }
        SharedNDArray<?> a = order.get(i);
        if (a == target) {
            Object[] result = {null};
            a.locks().write(() -> result[0] = nest(order, i + 1, target, body));
            @SuppressWarnings("unchecked")
            R r = (R) result[0];
            return r;
        }
        return a.locks().read(() -> nest(order, i + 1, target, body));
    }
}
