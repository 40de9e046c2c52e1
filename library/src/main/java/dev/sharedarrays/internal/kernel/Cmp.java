package dev.sharedarrays.internal.kernel;

/**
 * The element-wise comparisons, each with its Java operator; tools/gen_kernels.py reads the rows
 * (keep each on one line). A NaN compares false except with NE, as in numpy and Java.
 */
public enum Cmp {
    GT(">"),
    LT("<"),
    GE(">="),
    LE("<="),
    EQ("=="),
    NE("!=");

    private final String symbol;

    Cmp(String symbol) {
        this.symbol = symbol;
    }

    /** The Java (and numpy) operator: {@code ">"}. */
    public String symbol() {
        return symbol;
    }

    /** This comparison's answer for a and b that are ordered (no NaN), given {@code compare(a, b)}. */
    public boolean test(int compareResult) {
        return switch (this) {
            case GT -> compareResult > 0;
            case LT -> compareResult < 0;
            case GE -> compareResult >= 0;
            case LE -> compareResult <= 0;
            case EQ -> compareResult == 0;
            case NE -> compareResult != 0;
        };
    }
}
