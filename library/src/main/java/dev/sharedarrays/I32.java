package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 32-bit signed integer, numpy {@code '<i4'}. */
public final class I32 extends DType<I32> {
    /** The only instance. */
    public static final I32 TYPE = new I32();

    private I32() {
        super(ElementType.I32);
    }
}
