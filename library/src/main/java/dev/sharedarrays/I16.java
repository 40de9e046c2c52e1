package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 16-bit signed integer, numpy {@code '<i2'}. */
public final class I16 extends DType<I16> {
    /** The only instance. */
    public static final I16 TYPE = new I16();

    private I16() {
        super(ElementType.I16);
    }
}
