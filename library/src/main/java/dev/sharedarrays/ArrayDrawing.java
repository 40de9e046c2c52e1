package dev.sharedarrays;

import dev.sharedarrays.internal.render.Drawable;

/** An array as the pictures of {@link Rendering} read it. */
record ArrayDrawing(SharedNDArray<?> array) implements Drawable {
    @Override
    public String dtypeName() {
        return array.dtype().name();
    }

    @Override
    public boolean isBool() {
        return array.dtype().isBool();
    }

    @Override
    public boolean isFloatingPoint() {
        return array.dtype().isFloatingPoint();
    }

    @Override
    public boolean isUnsignedLong() {
        return array.dtype() == U64.TYPE;
    }

    @Override
    public long[] shape() {
        return array.shape();
    }

    @Override
    public Drawable select(int axis, long index) {
        return new ArrayDrawing(array.select(axis, index));
    }

    @Override
    public double[] read(long from, long to) {
        return (from == 0 && to == array.shape()[0] ? array : array.slice(0, from, to, 1)).toDoubleArray();
    }

    @Override
    public double sum() {
        return array.sum();
    }

    @Override
    public long minAsLong() {
        return array.minAsLong();
    }

    @Override
    public long maxAsLong() {
        return array.maxAsLong();
    }
}
