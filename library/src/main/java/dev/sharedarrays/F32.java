package dev.sharedarrays;

/** Element type marker: 32-bit IEEE float, numpy {@code '<f4'}. */
public final class F32 extends DType<F32> {
    /** The only instance. */
    public static final F32 TYPE = new F32();

    private F32() {
        super(2, "F32", "<f4", 'f', 4);
    }
}
