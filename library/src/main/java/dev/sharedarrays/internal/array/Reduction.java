package dev.sharedarrays.internal.array;

import dev.sharedarrays.internal.kernel.ElementType;

/**
 * The reductions beyond the row kernels' SUM, MIN and MAX, with numpy's result types: sums,
 * means, products, variances and standard deviations are F64 (numpy: the float type, or
 * int64/uint64 for integer sums and products, which the API then converts); minima and maxima
 * keep the element type; arg-reductions give I64 indices.
 */
public enum Reduction {
    SUM, MEAN, PROD, MIN, MAX, VAR, STD, ARGMIN, ARGMAX;

    /** The element type of a result of this reduction over elements of type t. */
    public ElementType resultType(ElementType t) {
        return switch (this) {
            case MIN, MAX -> t;
            case ARGMIN, ARGMAX -> ElementType.I64;
            default -> ElementType.F64;
        };
    }

    boolean isArg() {
        return this == ARGMIN || this == ARGMAX;
    }

    boolean isSpread() {
        return this == VAR || this == STD;
    }

    /** True if integer elements are reduced as longs (sums and products wrap in 64 bits); else as doubles. */
    boolean integerDomain(ElementType t) {
        return !t.isFloatingPoint() && !isSpread();
    }
}
