package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 32-bit unsigned integer, numpy {@code '<u4'}. */
public final class U32 extends DType<U32> {
    /** The only instance. */
    public static final U32 TYPE = new U32();

    private U32() {
        super(ElementType.U32);
    }
}
