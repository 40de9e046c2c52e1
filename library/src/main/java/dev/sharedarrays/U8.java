package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 8-bit unsigned integer, numpy {@code '|u1'}. */
public final class U8 extends DType<U8> {
    /** The only instance. */
    public static final U8 TYPE = new U8();

    private U8() {
        super(ElementType.U8);
    }
}
