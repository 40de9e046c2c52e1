package dev.sharedarrays.internal.kernel;

/**
 * The element-wise logical operations of bool rows, each with its Java operator on 0/1 values;
 * tools/gen_kernels.py reads the rows (keep each on one line). NOT has one operand.
 */
public enum Logic {
    AND("&"),
    OR("|"),
    XOR("^"),
    NOT("!");

    private final String symbol;

    Logic(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
