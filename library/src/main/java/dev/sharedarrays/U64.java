package dev.sharedarrays;

/** Element type marker: 64-bit unsigned integer, numpy {@code '<u8'}. */
public final class U64 extends DType<U64> {
    /** The only instance. */
    public static final U64 TYPE = new U64();

    private U64() {
        super(7, "U64", "<u8", 'u', 8);
    }
}
