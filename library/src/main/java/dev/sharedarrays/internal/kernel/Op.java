package dev.sharedarrays.internal.kernel;

/** The operations the kernels implement: in-place arithmetic, assignment, and reductions. */
public enum Op {
    ADD("add"),
    SUB("subtract"),
    MUL("multiply"),
    DIV("divide"),
    ASSIGN("copy"),
    SUM("sum"),
    MIN("min"),
    MAX("max");

    private final String verb;

    Op(String verb) {
        this.verb = verb;
    }

    /** The word error messages use: "cannot add ...". */
    public String verb() {
        return verb;
    }
}
