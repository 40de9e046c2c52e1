package dev.sharedarrays.internal.render;

/**
 * What a picture reads of an array: its element kind, its shape and its elements. The API's array
 * adapts itself to this, so the pictures know no array class.
 */
public interface Drawable {
    /** The element type's name, as a caption shows it ("F64"). */
    String dtypeName();

    boolean isBool();

    boolean isFloatingPoint();

    /** U64: its integers are printed unsigned. */
    boolean isUnsignedLong();

    long[] shape();

    /** This array with axis {@code axis} fixed at {@code index} (one axis fewer). */
    Drawable select(int axis, long index);

    /** Elements {@code [from, to)} of this 1-D array as doubles, read under its read lock. */
    double[] read(long from, long to);

    /** The sum of the elements (the count of trues of a mask). */
    double sum();

    /** The exact minimum of an integer array. */
    long minAsLong();

    /** The exact maximum of an integer array. */
    long maxAsLong();
}
