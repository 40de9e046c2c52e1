"""SimdMathLoops.java: SIMD loops of the element-wise math functions (MathOp) for contiguous F64 and
F32 rows, the F64/F32 casts and the F64 per-axis sums, minima and maxima across rows. Each loop
method names one VectorOperators operator (or one fixed expression) as a constant: C2 compiles the
Vector API to SIMD instructions only then, so the dispatch switches pick a loop once per row."""
import os
import re
from dataclasses import dataclass

from .java import cases, java, java_file, mark_simd_loops
from .table import TableError


@dataclass(frozen=True)
class MathLanes:
    vector: str  # jdk.incubator.vector class
    species: str  # the VectorSpecies constant in SimdMathLoops, also the loops' suffix
    box: str
    size: int
    suffix: str  # of a literal of the lane type: 1.0 or 1.0f
    bits: str  # the integer lanes of the same size, for the sign bit: Longs, Ints
    bits_box: str
    whole: str  # from this magnitude on every value is whole (see rint)
    first: bool  # the comments are written once, on the first lanes' loops
    p: str  # unary's p and q as this lane type
    q: str

    def lit(self, x):
        return x + self.suffix


MATH_LANES = (
    MathLanes("DoubleVector", "D", "Double", 8, "", "Longs", "Long", "WHOLE_D", True, "p", "q"),
    MathLanes("FloatVector", "F", "Float", 4, "f", "Ints", "Integer", "WHOLE_F", False, "pf", "(float) q"),
)

# MathOps that are one VectorOperators unary operator of the same name (lanewise), in switch order
LANEWISE = ("SQRT", "EXP", "LOG", "LOG1P", "EXPM1", "SIN", "COS", "TAN", "TANH", "ABS")
# MathOps with a loop of their own below, in switch order
SPECIAL = ("SIGN", "FLOOR", "CEIL", "RINT", "POW", "CLIP")


def read_math_ops(path):
    """The constants of the MathOp enum, in order."""
    try:
        with open(path) as f:
            ops = re.findall(r'^\s*([A-Z][A-Z0-9_]*)\("[^"]*",', f.read(), re.MULTILINE)
    except OSError as e:
        raise TableError(f"cannot read the math operations: {e}")
    if not ops:
        raise TableError(f"{os.path.relpath(path)}: no rows NAME(\"name\", ...) in MathOp")
    return ops


def check_math_ops(math_ops):
    """TableError unless every MathOp has its loops here, and every loop here a MathOp."""
    written = LANEWISE + SPECIAL
    missing = [op for op in math_ops if op not in written]
    if missing:
        raise TableError(f"no SIMD loop for MathOp {', '.join(missing)}: add it to tools/kernelgen/vmath.py")
    extra = [op for op in written if op not in math_ops]
    if extra:
        raise TableError(f"no constant {', '.join(extra)} in MathOp, which tools/kernelgen/vmath.py writes loops for")


def rows_loop(name, call):
    """acc (the first row) combined with every further row, by `call` (add, min, max)."""
    return java("""
        private static void ${name}Rows(double[] acc, int bound, MemorySegment s, long first, long rb, long rows) {
            long i = 1;
            for (; i + 4 <= rows; i += 4) {
                long o = first + i * rb;
                for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                    DoubleVector v01 = DoubleVector.fromMemorySegment(D, s, o, LE).$call(DoubleVector.fromMemorySegment(D, s, o + rb, LE));
                    DoubleVector v23 = DoubleVector.fromMemorySegment(D, s, o + 2 * rb, LE)
                            .$call(DoubleVector.fromMemorySegment(D, s, o + 3 * rb, LE));
                    DoubleVector.fromArray(D, acc, j).$call(v01.$call(v23)).intoArray(acc, j);
                }
            }
            for (; i < rows; i++) {
                long o = first + i * rb;
                for (int j = 0; j < bound; j += D.length(), o += 8L * D.length()) {
                    DoubleVector.fromArray(D, acc, j).$call(DoubleVector.fromMemorySegment(D, s, o, LE)).intoArray(acc, j);
                }
            }
        }""", name=name, call=call)


COMBINE_ROWS = """
@Override
public int combineRowsF64(int op, double[] acc, MemorySegment s, long first, long rowBytes, long rows, int n) {
    int bound = n - n % D.length();
    switch (op) {
        case 1 -> minRows(acc, bound, s, first, rowBytes, rows);
        case 2 -> maxRows(acc, bound, s, first, rowBytes, rows);
        default -> sumRows(acc, bound, s, first, rowBytes, rows);
    }
    return bound;
}"""

CONVERT = """
@Override
public long convert(ElementType from, ElementType to, MemorySegment s, long so, MemorySegment d, long dOff, long n) {
    long bound = n - n % D.length();
    if (F_HALF == null) {
        return 0;
    }
    if (from == ElementType.F64 && to == ElementType.F32) {
        for (long i = 0; i < bound; i += D.length()) {
            DoubleVector v = DoubleVector.fromMemorySegment(D, s, so + i * 8, LE);
            v.convertShape(VectorOperators.D2F, F_HALF, 0).intoMemorySegment(d, dOff + i * 4, LE);
        }
        return bound;
    }
    if (from == ElementType.F32 && to == ElementType.F64) {
        for (long i = 0; i < bound; i += D.length()) {
            FloatVector v = FloatVector.fromMemorySegment(F_HALF, s, so + i * 4, LE);
            v.convertShape(VectorOperators.F2D, D, 0).intoMemorySegment(d, dOff + i * 8, LE);
        }
        return bound;
    }
    return 0;
}"""

POW_DISPATCH = """
@Override
public long pow(ElementType t, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
    return t == ElementType.F64 ? powD(a, ao, b, bo, d, dOff, n) : powF(a, ao, b, bo, d, dOff, n);
}"""


def unary_switch(lanes):
    sp, p, q = lanes.species, lanes.p, lanes.q
    args = "s, so, d, dOff, n"
    arms = [((op,), f"{op.lower()}{sp}({args})") for op in LANEWISE]
    arms += [((op,), f"{op.lower()}{sp}({args})") for op in ("SIGN", "FLOOR", "CEIL", "RINT")]
    arms += [(("POW",), f"pow{sp}({args}, {p})"),
             (("CLIP",), f"Double.isNaN(p) || Double.isNaN(q) ? 0 : clip{sp}({args}, {p}, {q})")]
    return cases("op", arms, expr=True)


def unary_dispatch():
    d, f = MATH_LANES
    return java("""
        @Override
        public long unary(ElementType t, MathOp op, MemorySegment s, long so, MemorySegment d, long dOff, long n, double p, double q) {
            if (t == ElementType.F64) {
                return $d;
            }
            float pf = (float) p;
            return $f;
        }""", d=[unary_switch(d)], f=[unary_switch(f)])


def loop(lanes, name, body, params=""):
    """A method running `body` (lines, with x loaded when it names x) over whole vectors of s into d."""
    v, sp, size = lanes.vector, lanes.species, lanes.size
    return java("""
        private static long $name$sp(MemorySegment s, long so, MemorySegment d, long dOff, long n$params) {
            long step = $sp.length();
            long i = 0;
            for (; i <= n - step; i += step) {
                $body
            }
            return i;
        }""", name=name, sp=sp, params=params, body=[body.replace("$V", v).replace("$SP", sp).replace("$N", str(size))])


LOAD = "$V.fromMemorySegment($SP, s, so + i * $N, LE)"
STORE = "intoMemorySegment(d, dOff + i * $N, LE)"


def lanewise_loop(lanes, op):
    return loop(lanes, op.lower(), f"{LOAD}.lanewise(VectorOperators.{op}).{STORE};")


def special_loops(lanes):
    v, sp, box, lit, first = lanes.vector, lanes.species, lanes.box, lanes.lit, lanes.first
    load_x = f"$V x = {LOAD};"
    sign_comment = "\n// NaN stays NaN; both zeros give +0.0, as numpy's sign does" if first else ""
    sign = loop(lanes, "sign", f"""{load_x}{sign_comment}
x.blend({lit("1.0")}, x.compare(GT, {lit("0.0")})).blend({lit("-1.0")}, x.compare(LT, {lit("0.0")})).blend({lit("0.0")}, x.compare(EQ, {lit("0.0")}))
        .{STORE};""")
    rint_doc = "/** x rounded to a whole number, ties to even, with x's sign (rint(-0.4) is -0.0). */\n" if first else ""
    rint_helper = rint_doc + java("""
        private static $v rint($v x) {
            $v a = x.abs();
            return withSignOf(a.add($whole).sub($whole).blend(a, a.compare(GE, $whole)), x);
        }""", v=v, whole=lanes.whole)
    with_sign = java("""
        private static $v withSignOf($v r, $v x) {
            return r.reinterpretAs$bits().or(x.reinterpretAs$bits().and($bbox.MIN_VALUE)).reinterpretAs${box}s();
        }""", v=v, bits=lanes.bits, bbox=lanes.bits_box, box=box)
    rint = loop(lanes, "rint", f"rint({LOAD}).{STORE};")
    floor = loop(lanes, "floor", f"""{load_x}
$V r = rint(x);
r.sub({lit("1.0")}, r.compare(GT, x)).{STORE};""")
    ceil_comment = "\n// ceil(-0.5) is -0.0: the sign of x again after -1 + 1" if first else ""
    ceil = loop(lanes, "ceil", f"""{load_x}
$V r = rint(x);{ceil_comment}
withSignOf(r.add({lit("1.0")}, r.compare(LT, x)), x).{STORE};""")
    jt = box.lower()
    clip = loop(lanes, "clip", f"""{load_x}
$V r = x.blend(lo, x.compare(LT, lo));
r.blend(hi, r.compare(GT, hi)).{STORE};""", f", {jt} lo, {jt} hi")
    pow_scalar = java("""
        private static long pow$sp(MemorySegment s, long so, MemorySegment d, long dOff, long n, $jt y) {
            if (y == $half) {
                return sqrt$sp(s, so, d, dOff, n);
            }
            long step = $sp.length();
            long i = 0;
            if (y == $two) {
                for (; i <= n - step; i += step) {
                    $v x = $v.fromMemorySegment($sp, s, so + i * $size, LE);
                    x.mul(x).intoMemorySegment(d, dOff + i * $size, LE);
                }
                return i;
            }
            if (y == $one) {
                for (; i <= n - step; i += step) {
                    $v.fromMemorySegment($sp, s, so + i * $size, LE).intoMemorySegment(d, dOff + i * $size, LE);
                }
                return i;
            }
            boolean inf = $box.isInfinite(y);
            boolean zero = y == 0;
            for (; i <= n - step; i += step) {
                $v x = $v.fromMemorySegment($sp, s, so + i * $size, LE);
                VectorMask<$box> one = x.compare(EQ, $one).or(x.compare(EQ, inf ? $minus_one : $one));
                x.lanewise(VectorOperators.POW, y).blend($one, zero ? $sp.maskAll(true) : one).intoMemorySegment(d, dOff + i * $size, LE);
            }
            return i;
        }""", sp=sp, jt=jt, v=v, box=box, size=lanes.size, half=lit("0.5"), two=lit("2.0"), one=lit("1.0"),
                      minus_one=lit("-1.0"))
    pow_comment = ["// C's pow (numpy's): 1 ** y, (-1) ** ±inf and x ** 0 are 1"] if first else []
    one_mask = pow_comment + [
        f"VectorMask<{box}> one = x.compare(EQ, {lit('1.0')}).or(y.compare(EQ, {lit('0.0')}))\n"
        f"        .or(x.compare(EQ, {lit('-1.0')}).and(y.abs().compare(EQ, {box}.POSITIVE_INFINITY)));"]
    pow_binary = java("""
        private static long pow$sp(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long step = $sp.length();
            long i = 0;
            for (; i <= n - step; i += step) {
                $v x = $v.fromMemorySegment($sp, a, ao + i * $size, LE);
                $v y = $v.fromMemorySegment($sp, b, bo + i * $size, LE);
                $one_mask
                x.lanewise(VectorOperators.POW, y).blend($one, one).intoMemorySegment(d, dOff + i * $size, LE);
            }
            return i;
        }""", sp=sp, v=v, box=box, size=lanes.size, one=lit("1.0"), one_mask=one_mask)
    return [sign, rint_helper, with_sign, rint, floor, ceil, clip, pow_scalar, pow_binary]


MATH_DOC = """
/**
 * SIMD loops (jdk.incubator.vector) of the element-wise math functions for contiguous F64 and
 * F32 rows, of the F64/F32 casts, and of the F64 per-axis sums, minima and maxima across rows. Loaded only when the JVM runs with {@code --add-modules jdk.incubator.vector}. On
 * x86-64 the JDK compiles the transcendental operators and POW to Intel SVML routines (within
 * 1 ulp); the others are exact. The Vector API has no floor, ceil or rint: they round by adding
 * and subtracting 2^52 (2^23 for F32). Every loop names its operator as a constant: C2 compiles
 * the Vector API to SIMD instructions only then, so the switch picks a loop once per row.
 */"""

MATH_IMPORTS = [
    "import java.lang.foreign.MemorySegment;",
    "import java.nio.ByteOrder;",
    "import jdk.incubator.vector.DoubleVector;",
    "import jdk.incubator.vector.FloatVector;",
    "import jdk.incubator.vector.VectorMask;",
    "import jdk.incubator.vector.VectorOperators;",
    "import jdk.incubator.vector.VectorShape;",
    "import jdk.incubator.vector.VectorSpecies;",
    "",
    "import static jdk.incubator.vector.VectorOperators.EQ;",
    "import static jdk.incubator.vector.VectorOperators.GE;",
    "import static jdk.incubator.vector.VectorOperators.GT;",
    "import static jdk.incubator.vector.VectorOperators.LT;",
]

MATH_FIELDS = """
private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
/** As many floats as D has doubles: the other side of a conversion (none below 64 bits: then no SIMD conversion). */
private static final VectorSpecies<Float> F_HALF = D.vectorBitSize() >= 128
        ? VectorSpecies.of(float.class, VectorShape.forBitSize(D.vectorBitSize() / 2)) : null;
/** From this magnitude on every double is a whole number; below it x + 2^52 - 2^52 rounds x to even. */
private static final double WHOLE_D = 0x1p52;
private static final float WHOLE_F = 0x1p23f;"""

HANDLES = """
@Override
public boolean handles(ElementType t, MathOp op) {
    return t == ElementType.F64 || t == ElementType.F32;
}"""


def vector_math(math_ops):
    """SimdMathLoops.java, after checking that its loops are those of math_ops (read_math_ops)."""
    check_math_ops(math_ops)
    rows = [rows_loop(name, call) for name, call in (("sum", "add"), ("min", "min"), ("max", "max"))]
    rows[0] = "// row by row (four at a time), each across the block: acc stays in L1 and every row streams\n" + rows[0]
    members = [MATH_FIELDS.strip("\n"), HANDLES.strip("\n"), COMBINE_ROWS.strip("\n"), *rows,
               CONVERT.strip("\n"), POW_DISPATCH.strip("\n"), unary_dispatch()]
    members += [lanewise_loop(lanes, op) for op in LANEWISE for lanes in MATH_LANES]
    for lanes in MATH_LANES:
        members += special_loops(lanes)
    return mark_simd_loops(java_file(MATH_IMPORTS, MATH_DOC, "final class SimdMathLoops implements SimdMath {", members))
