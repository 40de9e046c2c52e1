package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 32-bit IEEE float, numpy {@code '<f4'}. */
public final class F32 extends DType<F32> {
    /** The only instance. */
    public static final F32 TYPE = new F32();

    private F32() {
        super(ElementType.F32);
    }
}
