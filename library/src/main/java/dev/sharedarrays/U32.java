package dev.sharedarrays;

/** Element type marker: 32-bit unsigned integer, numpy {@code '<u4'}. */
public final class U32 extends DType<U32> {
    /** The only instance. */
    public static final U32 TYPE = new U32();

    private U32() {
        super(8, "U32", "<u4", 'u', 4);
    }
}
