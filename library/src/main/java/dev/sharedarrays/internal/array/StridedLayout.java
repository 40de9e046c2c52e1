package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ShapeLimits;

import java.util.Arrays;

/**
 * Where the elements of an array or view sit in its segment: an offset and a stride per axis,
 * both in elements (strides may be negative after a reversed slice). Immutable.
 */
public record StridedLayout(long offset, long[] shape, long[] strides) {

    /**
     * This layout read as {@code target}'s shape by numpy's broadcasting: leading axes added and
     * axes of length 1 stretched, both with stride 0; null if it does not broadcast to exactly
     * {@code target}.
     */
    public StridedLayout broadcastTo(long[] target) {
        int extra = target.length - shape.length;
        if (extra < 0) {
            return null;
        }
        long[] st = new long[target.length];
        for (int i = 0; i < shape.length; i++) {
            long d = shape[i];
            long want = target[extra + i];
            if (d == want) {
                st[extra + i] = strides[i];
            } else if (d != 1) {
                return null;
            }
        }
        return new StridedLayout(offset, target.clone(), st);
    }

    /** The row-major layout of a whole array. */
    public static StridedLayout contiguous(long[] shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            s *= shape[i];
        }
        return new StridedLayout(0, shape.clone(), strides);
    }

    public int ndim() {
        return shape.length;
    }

    public long size() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /** True if the elements are row-major and adjacent (a dimension of 1 may have any stride). */
    public boolean isContiguous() {
        long expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expected) {
                return false;
            }
            expected *= shape[i];
        }
        return true;
    }

    /**
     * Element offset of a full multi-index.
     *
     * @throws IndexOutOfBoundsException naming the index, the axis and the bound
     */
    public long offsetOf(long[] index) {
        if (index.length != shape.length) {
            // a[1] on a matrix is numpy's row; here element access needs every index, so say how to get the row
            String hint = index.length >= shape.length ? "" : "; an element needs " + shape.length + " indices: for the view of "
                    + "the remaining axes write a[" + join(index) + ", all] in Kotlin, view(Slice.index(...)) in Java";
            throw new IndexOutOfBoundsException(index.length + " indices " + Arrays.toString(index) + " for an array of "
                    + shape.length + " dimensions, shape " + Arrays.toString(shape) + hint);
        }
        long off = offset;
        for (int i = 0; i < shape.length; i++) {
            long k = index[i];
            if (k < 0 || k >= shape[i]) {
                throw new IndexOutOfBoundsException("index " + k + " is out of bounds for axis " + i + " with size " + shape[i]
                        + " (shape " + Arrays.toString(shape) + ")");
            }
            off += k * strides[i];
        }
        return off;
    }

    private static String join(long[] index) {
        return String.join(", ", Arrays.stream(index).mapToObj(Long::toString).toList());
    }

    /** Element offset of the flat row-major position (not checked). */
    public long offsetOfFlat(long flat) {
        long off = offset;
        for (int i = shape.length - 1; i >= 0 && flat != 0; i--) {
            long d = shape[i];
            off += (flat % d) * strides[i];
            flat /= d;
        }
        return off;
    }

    /**
     * The view of elements start, start+step, ... before stop on one axis. Python rules:
     * negative start/stop count from the end, out-of-range bounds are clipped, step != 0.
     */
    public StridedLayout slice(int axis, long start, long stop, long step) {
        checkAxis(axis);
        if (step == 0) {
            throw new IllegalArgumentException("slice step must not be 0 (axis " + axis + ")");
        }
        long d = shape[axis];
        long lo;
        long hi;
        if (step > 0) {
            lo = clip(start == Long.MIN_VALUE ? 0 : start, d, 0, d);
            hi = clip(stop == Long.MAX_VALUE ? d : stop, d, 0, d);
        } else {
            lo = clip(start == Long.MIN_VALUE ? d - 1 : start, d, -1, d - 1);
            hi = clip(stop == Long.MAX_VALUE ? -1 - d : stop, d, -1, d - 1);
        }
        long count = step > 0 ? (hi > lo ? (hi - lo + step - 1) / step : 0) : (lo > hi ? (lo - hi - step - 1) / -step : 0);
        if (count == 0) {
            throw new IllegalArgumentException("slice [" + str(start) + ":" + str(stop) + ":" + step + "] of axis " + axis
                    + " (size " + d + ") selects no element; arrays have at least one element per axis");
        }
        long[] s = shape.clone();
        long[] st = strides.clone();
        s[axis] = count;
        st[axis] = strides[axis] * step;
        return new StridedLayout(offset + lo * strides[axis], s, st);
    }

    private static String str(long bound) {
        return bound == Long.MIN_VALUE || bound == Long.MAX_VALUE ? "" : Long.toString(bound);
    }

    private static long clip(long v, long d, long min, long max) {
        if (v < 0) {
            v += d;
        }
        return Math.max(min, Math.min(max, v));
    }

    /**
     * The view with axis fixed at index (negative counts from the end), one dimension fewer.
     *
     * @throws IndexOutOfBoundsException if index is outside the axis
     * @throws IllegalArgumentException if the array has one dimension (a view keeps at least one)
     */
    public StridedLayout select(int axis, long index) {
        checkAxis(axis);
        long d = shape[axis];
        long k = index < 0 ? index + d : index;
        if (k < 0 || k >= d) {
            throw new IndexOutOfBoundsException("index " + index + " is out of bounds for axis " + axis + " with size " + d);
        }
        if (shape.length == 1) {
            throw new IllegalArgumentException("selecting an index of a 1-dimensional array leaves no axis; read the element instead");
        }
        long[] s = new long[shape.length - 1];
        long[] st = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i != axis) {
                s[j] = shape[i];
                st[j++] = strides[i];
            }
        }
        return new StridedLayout(offset + k * strides[axis], s, st);
    }

    /** Axes permuted: axis i of the result is axis perm[i] of this. */
    public StridedLayout transpose(int[] perm) {
        if (perm.length != shape.length) {
            throw new IllegalArgumentException("transpose needs " + shape.length + " axes, got " + Arrays.toString(perm));
        }
        boolean[] seen = new boolean[shape.length];
        long[] s = new long[shape.length];
        long[] st = new long[shape.length];
        for (int i = 0; i < perm.length; i++) {
            int p = perm[i];
            if (p < 0 || p >= shape.length || seen[p]) {
                throw new IllegalArgumentException("transpose axes " + Arrays.toString(perm) + " are not a permutation of 0.." + (shape.length - 1));
            }
            seen[p] = true;
            s[i] = shape[p];
            st[i] = strides[p];
        }
        return new StridedLayout(offset, s, st);
    }

    /** A contiguous layout with the same offset and a new shape of the same size. */
    public StridedLayout reshape(long[] newShape) {
        StridedLayout c = contiguous(newShape);
        return new StridedLayout(offset, c.shape, c.strides);
    }

    private void checkAxis(int axis) {
        if (axis < 0 || axis >= shape.length) {
            throw new IndexOutOfBoundsException("axis " + axis + " is out of bounds for an array of " + shape.length + " dimensions");
        }
    }

    /**
     * The layout these numbers (from another process: a queue message) describe, or null if it
     * reaches outside elements [0, count), its arithmetic overflows, or it has more elements than
     * an array may (strides of 0 repeat elements: the product of the shape is checked on its own).
     */
    public static StridedLayout within(long offset, long[] shape, long[] strides, long count) {
        if (shape.length != strides.length || shape.length < 1 || shape.length > ShapeLimits.MAX_DIMS
                || ShapeLimits.dataLength(shape, 1) < 0) {
            return null;
        }
        long lo = offset;
        long hi = offset;
        try {
            for (int i = 0; i < shape.length; i++) {
                if (shape[i] < 1 || shape[i] > count) {
                    return null;
                }
                long span = Math.multiplyExact(shape[i] - 1, strides[i]);
                lo = span < 0 ? Math.addExact(lo, span) : lo;
                hi = span > 0 ? Math.addExact(hi, span) : hi;
            }
        } catch (ArithmeticException e) {
            return null;
        }
        return lo >= 0 && hi < count ? new StridedLayout(offset, shape.clone(), strides.clone()) : null;
    }

    /** Lowest and highest element offset the layout touches. */
    public long[] extent() {
        long lo = offset;
        long hi = offset;
        for (int i = 0; i < shape.length; i++) {
            long span = (shape[i] - 1) * strides[i];
            if (span < 0) {
                lo += span;
            } else {
                hi += span;
            }
        }
        return new long[] {lo, hi};
    }

    /**
     * The same elements in the same row-major order as few rows as possible: adjacent axes merge
     * where the outer stride equals the inner stride times the inner size, and axes of size 1 go.
     */
    public StridedLayout coalesce() {
        int n = 0;
        long[] s = new long[shape.length];
        long[] st = new long[shape.length];
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 1) {
                continue;
            }
            if (n > 0 && st[n - 1] == strides[i] * shape[i]) {
                s[n - 1] *= shape[i];
                st[n - 1] = strides[i];
            } else {
                s[n] = shape[i];
                st[n++] = strides[i];
            }
        }
        if (n == 0) {
            return new StridedLayout(offset, new long[] {1}, new long[] {1});
        }
        return new StridedLayout(offset, Arrays.copyOf(s, n), Arrays.copyOf(st, n));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StridedLayout l && l.offset == offset && Arrays.equals(l.shape, shape) && Arrays.equals(l.strides, strides);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + Arrays.hashCode(shape) * 17 + Arrays.hashCode(strides);
    }

    @Override
    public String toString() {
        return "StridedLayout(offset=" + offset + ", shape=" + Arrays.toString(shape) + ", strides=" + Arrays.toString(strides) + ")";
    }
}
