package dev.sharedarrays;

/** Element type marker: 32-bit signed integer, numpy {@code '<i4'}. */
public final class I32 extends DType<I32> {
    /** The only instance. */
    public static final I32 TYPE = new I32();

    private I32() {
        super(4, "I32", "<i4", 'i', 4);
    }
}
