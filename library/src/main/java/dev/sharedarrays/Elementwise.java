package dev.sharedarrays;

import dev.sharedarrays.internal.array.StridedLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the element-wise operations that make new arrays share (comparisons, logic, where, masked
 * copies): their results, the broadcast of their operands, and the locks of several arrays taken
 * in the order of array id (as {@code x += y} takes its two), so that no two operations in two
 * processes wait for each other.
 */
final class Elementwise {
    private Elementwise() {
    }

    /** A new process-local array for a result that is written whole. */
    static <T extends DType<T>> SharedNDArray<T> result(T dtype, long[] shape) {
        // stand-in until Local.empty lands: an anonymous array
        return SharedArrays.create(dtype, shape, CreateOptions.defaults().backend(Backend.ANONYMOUS));
    }

    /**
     * numpy's broadcast of shapes: aligned at their last axes, each pair of dimensions equal or one of them 1.
     *
     * @throws ShapeMismatchException naming the shapes if they do not broadcast
     */
    static long[] broadcast(long[]... shapes) {
        int nd = 0;
        for (long[] s : shapes) {
            nd = Math.max(nd, s.length);
        }
        long[] out = new long[nd];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int i = 0; i < s.length; i++) {
                int a = nd - s.length + i;
                if (out[a] == 1) {
                    out[a] = s[i];
                } else if (s[i] != 1 && s[i] != out[a]) {
                    throw new ShapeMismatchException("shapes " + String.join(" and ", Arrays.stream(shapes).map(Arrays::toString).toList())
                            + " do not broadcast (numpy's rule: aligned at the last axis, each pair of dimensions equal or one of them 1)");
                }
            }
        }
        return out;
    }

    /** The layout l read as the broadcast shape: new leading axes and stretched axes of 1 get stride 0. */
    static StridedLayout broadcastTo(StridedLayout l, long[] shape) {
        long[] strides = new long[shape.length];
        int shift = shape.length - l.ndim();
        for (int i = 0; i < l.ndim(); i++) {
            strides[shift + i] = l.shape()[i] == shape[shift + i] ? l.strides()[i] : 0;
        }
        return new StridedLayout(l.offset(), shape.clone(), strides);
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
