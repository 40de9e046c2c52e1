package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 64-bit unsigned integer, numpy {@code '<u8'}. */
public final class U64 extends DType<U64> {
    /** The only instance. */
    public static final U64 TYPE = new U64();

    private U64() {
        super(ElementType.U64);
    }
}
