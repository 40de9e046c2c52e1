package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 8-bit signed integer, numpy {@code '|i1'}. */
public final class I8 extends DType<I8> {
    /** The only instance. */
    public static final I8 TYPE = new I8();

    private I8() {
        super(ElementType.I8);
    }
}
