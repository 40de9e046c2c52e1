package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 16-bit unsigned integer, numpy {@code '<u2'}. */
public final class U16 extends DType<U16> {
    /** The only instance. */
    public static final U16 TYPE = new U16();

    private U16() {
        super(ElementType.U16);
    }
}
