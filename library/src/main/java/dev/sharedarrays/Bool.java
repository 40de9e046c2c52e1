package dev.sharedarrays;

import dev.sharedarrays.internal.kernel.ElementType;

/**
 * Element type marker: boolean, one byte holding 0 or 1, numpy {@code '|b1'}. Elements read as
 * 0 and 1; a nonzero (or NaN) store is 1, as numpy's cast to bool. Bool arrays are what
 * comparisons return and what masks are; they take copies, fills, logic ({@code and or xor not})
 * and reductions ({@code sum} counts the true elements), but no arithmetic.
 */
public final class Bool extends DType<Bool> {
    /** The only instance. */
    public static final Bool TYPE = new Bool();

    private Bool() {
        super(ElementType.BOOL);
    }
}
