package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/** Element type marker: 64-bit IEEE float, numpy {@code '<f8'}. */
public final class F64 extends DType<F64> {
    /** The only instance. */
    public static final F64 TYPE = new F64();

    private F64() {
        super(ElementType.F64);
    }
}
