package dev.sharedarrays.internal.kernel;

/**
 * The element-wise math functions ({@link MathKernels}), by numpy's names. {@code POW} here has
 * one exponent for the whole array and {@code CLIP} two bounds; the exponent array of
 * {@code pow(a, b)} is {@link MathKernels#pow}.
 */
public enum MathOp {
    SQRT("sqrt", false),
    EXP("exp", false),
    LOG("log", false),
    LOG1P("log1p", false),
    EXPM1("expm1", false),
    ABS("abs", true),
    SIGN("sign", true),
    SIN("sin", false),
    COS("cos", false),
    TAN("tan", false),
    TANH("tanh", false),
    FLOOR("floor", true),
    CEIL("ceil", true),
    RINT("rint", false),
    POW("pow", false),
    CLIP("clip", true);

    private final String numpyName;
    private final boolean integers;

    MathOp(String numpyName, boolean integers) {
        this.numpyName = numpyName;
        this.integers = integers;
    }

    /** numpy's name, for messages. */
    public String numpyName() {
        return numpyName;
    }

    /** True if the function is defined for integer arrays too, keeping their dtype (abs, sign, clip; floor and ceil as in numpy 2.4: the values). */
    public boolean takesIntegers() {
        return integers;
    }
}
