package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 64-bit signed integer, numpy {@code '<i8'}. */
public final class I64 extends DType<I64> {
    /** The only instance. */
    public static final I64 TYPE = new I64();

    private I64() {
        super(ElementType.I64);
    }
}
