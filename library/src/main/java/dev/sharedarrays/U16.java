package dev.sharedarrays;

/** Element type marker: 16-bit unsigned integer, numpy {@code '<u2'}. */
public final class U16 extends DType<U16> {
    /** The only instance. */
    public static final U16 TYPE = new U16();

    private U16() {
        super(9, "U16", "<u2", 'u', 2);
    }
}
