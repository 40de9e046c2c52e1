package dev.sharedarrays;

/** Element type marker: 64-bit IEEE float, numpy {@code '<f8'}. */
public final class F64 extends DType<F64> {
    /** The only instance. */
    public static final F64 TYPE = new F64();

    private F64() {
        super(1, "F64", "<f8", 'f', 8);
    }
}
