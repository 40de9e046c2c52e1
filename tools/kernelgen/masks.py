"""ScalarMaskKernels.java and SimdMaskLoops.java: comparisons into bool rows, logic on bool
rows, where (select by mask), and the masked copies (compress, expand)."""
import os
import re
from dataclasses import dataclass

from .java import block, cases, java, java_file, mark_simd_loops
from .table import TableError

# storage of each item size: where, compress and expand move bits, whatever the element type
BITS = {8: ("long", "JAVA_LONG"), 4: ("int", "JAVA_INT"), 2: ("short", "JAVA_SHORT"), 1: ("byte", "JAVA_BYTE")}


def read_symbols(path, enum):
    """[(constant, symbol)] of an enum whose rows are NAME("symbol"); TableError if there are none."""
    try:
        with open(path) as f:
            rows = re.findall(r'^\s*([A-Z][A-Z0-9_]*)\("([^"]*)"\)[,;]', f.read(), re.MULTILINE)
    except OSError as e:
        raise TableError(f"cannot read {enum}: {e}")
    if not rows:
        raise TableError(f"{os.path.relpath(path)}: no rows NAME(\"symbol\") in {enum}")
    return rows


def domain(t):
    """(the Java type of a comparison loop's scalar, the dispatch's argument for it from dv or lv):
    widened or sign-flipped so that Java's operators order the values as the element type does."""
    return {
        ("f", 8): ("double", "dv"), ("f", 4): ("float", "(float) dv"),
        ("i", 8): ("long", "lv"), ("u", 8): ("long", "lv ^ Long.MIN_VALUE"),
        ("i", 4): ("int", "(int) lv"), ("u", 4): ("int", "(int) lv ^ Integer.MIN_VALUE"),
    }.get((t.kind, t.size), ("int", "(int) lv"))


def statement_switch(subject, arms, default_block):
    """switch (subject) with block arms [(labels, statement)] and a default block, as statements."""
    lines = [f"case {', '.join(labels)} -> {body}" for labels, body in arms]
    lines.append("default -> " + block(default_block))
    return java("""
        switch ($subject) {
            $lines
        }""", subject=subject, lines=lines)


def element(t, seg, off):
    """Java expression: the element at byte offset off of seg, in t's comparison domain."""
    raw = f"{seg}.get({t.layout}, {off})"
    if t.is_bool:
        return f"({raw} != 0 ? 1 : 0)"
    if t.kind == "u" and t.size == 8:
        return f"({raw} ^ Long.MIN_VALUE)"
    if t.kind == "u" and t.size == 4:
        return f"({raw} ^ Integer.MIN_VALUE)"
    if t.kind == "u":
        box = {2: "Short", 1: "Byte"}[t.size]
        return f"{box}.toUnsignedInt({raw})"
    return raw


# ---- scalar loops ----------------------------------------------------------------------------

def compare_loop(t, cmp, sym, scalar):
    """One strided loop: out byte = (a[i] cmp v) for a scalar, or (a[i] cmp b[i]) for two rows."""
    name = f"{cmp.lower()}{'S' if scalar else 'A'}{t.name}"
    if scalar:
        params = f"MemorySegment a, long ao, long as, MemorySegment o, long oo, long os, long n, {domain(t)[0]} v"
        head = "for (long i = 0, x = ao, y = oo; i < n; i++, x += as, y += os) {"
        rhs = "v"
    else:
        params = "MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, MemorySegment o, long oo, long os, long n"
        head = "for (long i = 0, x = ao, z = bo, y = oo; i < n; i++, x += as, z += bs, y += os) {"
        rhs = element(t, "b", "z")
    return java("""
        private static void $name($params) {
            $head
                o.set(JAVA_BYTE, y, $lhs $sym $rhs ? (byte) 1 : 0);
            }
        }""", name=name, params=params, head=head, lhs=element(t, "a", "x"), sym=sym, rhs=rhs)


def compare_dispatch(types, cmps, scalar):
    def call(t, cmp):
        if scalar:
            return f"{cmp.lower()}S{t.name}(a, ao, as, o, oo, os, n, {domain(t)[1]});"
        return f"{cmp.lower()}A{t.name}(a, ao, as, b, bo, bs, o, oo, os, n);"
    arms = [((t.name,), block(cases("c", [((cmp,), call(t, cmp)) for cmp, _ in cmps]))) for t in types]
    if scalar:
        return java("""
            /**
             * out = (a cmp v) as bytes 0 or 1: dv for float rows (F32 compares (float) dv), lv for
             * integer rows, in the element type's range (U64: its bit pattern).
             */
            static void compareScalar(ElementType t, Cmp c, MemorySegment a, long ao, long as, MemorySegment o, long oo, long os, long n,
                                      double dv, long lv) {
                $switch
            }""", switch=[cases("t", arms)])
    return java("""
        /** out = (a cmp b) as bytes 0 or 1, for two rows of type t. */
        static void compare(ElementType t, Cmp c, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                            MemorySegment o, long oo, long os, long n) {
            $switch
        }""", switch=[cases("t", arms)])


def size_dispatch(method, params, args, doc, result="void"):
    expr = result != "void"
    end = "" if expr else ";"
    arms = [((str(size),), f"{method}{size}({args}){end}") for size in BITS]
    sw = cases("size", arms, 'throw new IllegalArgumentException("no element of " + size + " bytes")', expr=expr)
    return java("""
        /** $doc */
        static $result $method(int size, $params) {
            $ret$switch$semi
        }""", doc=doc, result=result, method=method, params=params, ret="return " if expr else "",
                semi=";" if expr else "", switch=[sw])


WHERE_PARAMS = ("MemorySegment m, long mo, long ms, MemorySegment x, long xo, long xs, MemorySegment y, long yo, long ys, "
                "MemorySegment o, long oo, long os, long n")
WHERE_ARGS = "m, mo, ms, x, xo, xs, y, yo, ys, o, oo, os, n"


def where_loop(size):
    jt, lay = BITS[size]
    return java("""
        private static void where$size($params) {
            for (long i = 0; i < n; i++, mo += ms, xo += xs, yo += ys, oo += os) {
                // both loaded, then picked: a conditional move, not a branch on a random mask
                $jt xv = x.get($lay, xo);
                $jt yv = y.get($lay, yo);
                o.set($lay, oo, m.get(JAVA_BYTE, mo) != 0 ? xv : yv);
            }
        }""", size=size, params=WHERE_PARAMS, jt=jt, lay=lay)


COMPRESS_PARAMS = "MemorySegment a, long ao, long as, MemorySegment m, long mo, long ms, MemorySegment o, long oo, long n, long limit"
COMPRESS_ARGS = "a, ao, as, m, mo, ms, o, oo, n, limit"


def compress_loop(size):
    jt, lay = BITS[size]
    return java("""
        private static long compress$size($params) {
            long k = 0;
            // every element is stored at the next free place, which advances past the selected
            // ones: no branch on the mask; the selected ones cannot outnumber limit
            for (long i = 0; i < n && k < limit; i++, ao += as, mo += ms) {
                o.set($lay, oo + k * $size, a.get($lay, ao));
                k += m.get(JAVA_BYTE, mo) != 0 ? 1 : 0;
            }
            return k;
        }""", size=size, params=COMPRESS_PARAMS, lay=lay)


EXPAND_PARAMS = "MemorySegment a, long ao, long as, MemorySegment m, long mo, long ms, MemorySegment v, long vo, long n, long limit"
EXPAND_ARGS = "a, ao, as, m, mo, ms, v, vo, n, limit"


def expand_loop(size):
    jt, lay = BITS[size]
    return java("""
        private static long expand$size($params) {
            long k = 0;
            for (long i = 0; i < n && k < limit; i++, ao += as, mo += ms) {
                if (m.get(JAVA_BYTE, mo) != 0) {
                    a.set($lay, ao, v.get($lay, vo + k * $size));
                    k++;
                }
            }
            return k;
        }""", size=size, params=EXPAND_PARAMS, lay=lay)


def logical_dispatch(logics):
    def expr(op, sym):
        if op == "NOT":
            return "a.get(JAVA_BYTE, x) == 0 ? (byte) 1 : 0"
        return f"(byte) ((a.get(JAVA_BYTE, x) != 0 ? 1 : 0) {sym} (b.get(JAVA_BYTE, z) != 0 ? 1 : 0))"
    arms = [((op,), f"{op.lower()}(a, ao, as, b, bo, bs, o, oo, os, n);") for op, _ in logics]
    loops = [java("""
        private static void $name(MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, MemorySegment o, long oo, long os, long n) {
            for (long i = 0, x = ao, z = bo, y = oo; i < n; i++, x += as, z += bs, y += os) {
                o.set(JAVA_BYTE, y, $expr);
            }
        }""", name=op.lower(), expr=expr(op, sym)) for op, sym in logics]
    dispatch = java("""
        /** out = a (op) b on bool rows as 0 or 1 (any nonzero byte is true); NOT reads only a. */
        static void logical(Logic op, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, MemorySegment o, long oo,
                            long os, long n) {
            $switch
        }""", switch=[cases("op", arms)])
    return [dispatch] + loops


SCALAR_DOC = """
/**
 * The strided loops of comparisons (bool results, one byte 0 or 1 each), logic on bool rows,
 * where, and the masked copies, on one row: n elements from byte offset off, byte stride apart
 * (0 repeats one element, for a scalar operand or a broadcast axis). {@link MaskKernels} runs
 * the SIMD loops of {@link SimdMaskLoops} first where it can.
 */"""


def scalar_mask_kernels(types, cmps, logics):
    members = ["private ScalarMaskKernels() {\n}"]
    members += [compare_dispatch(types, cmps, scalar=True)]
    members += [compare_loop(t, cmp, sym, True) for t in types for cmp, sym in cmps]
    members += [compare_dispatch(types, cmps, scalar=False)]
    members += [compare_loop(t, cmp, sym, False) for t in types for cmp, sym in cmps]
    members += logical_dispatch(logics)
    members += [size_dispatch("where", WHERE_PARAMS, WHERE_ARGS,
                              "out = mask ? x : y element by element, moving the bits of elements of size bytes.")]
    members += [where_loop(size) for size in BITS]
    members += [size_dispatch("compress", COMPRESS_PARAMS, COMPRESS_ARGS,
                              "Copies the elements of a whose mask byte is nonzero to o, contiguous from oo, at most limit; "
                              "returns how many.", "long")]
    members += [compress_loop(size) for size in BITS]
    members += [size_dispatch("expand", EXPAND_PARAMS, EXPAND_ARGS,
                              "Stores the next of the contiguous values v (at most limit) into each element of a whose "
                              "mask byte is nonzero; returns how many it took.", "long")]
    members += [expand_loop(size) for size in BITS]
    return java_file(["import java.lang.foreign.MemorySegment;", "", "import static java.lang.foreign.ValueLayout.*;"],
                     SCALAR_DOC, "final class ScalarMaskKernels {", members)


# ---- SIMD loops ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lanes:
    jtype: str
    vector: str
    species: str
    box: str


LANES = {
    "double": Lanes("double", "DoubleVector", "D", "Double"),
    "float": Lanes("float", "FloatVector", "F", "Float"),
    "long": Lanes("long", "LongVector", "L", "Long"),
    "int": Lanes("int", "IntVector", "I", "Integer"),
    "short": Lanes("short", "ShortVector", "S", "Short"),
    "byte": Lanes("byte", "ByteVector", "B", "Byte"),
}
LANES_OF_SIZE = {8: LANES["long"], 4: LANES["int"], 2: LANES["short"], 1: LANES["byte"]}


def lane_load(t, seg, off):
    """Java expression: the vector at byte offset off of seg, sign-flipped for unsigned types so that
    the signed comparisons order the lanes as unsigned (the Vector API of Java 22 has no unsigned ones)."""
    lanes = LANES[t.jtype]
    load = f"{lanes.vector}.fromMemorySegment({lanes.species}, {seg}, {off}, LE)"
    if t.kind == "u":
        return f"{load}.lanewise(VectorOperators.XOR, {lanes.box}.MIN_VALUE)"
    return load


def lane_arg(t):
    """The dispatch's scalar argument in the lane type, sign-flipped for unsigned types."""
    jt = LANES[t.jtype].jtype
    if t.kind != "u":
        return {"double": "dv", "float": "(float) dv", "long": "lv"}.get(jt, f"({jt}) lv")
    return {"long": "lv ^ Long.MIN_VALUE", "int": "(int) lv ^ Integer.MIN_VALUE"}.get(
        jt, f"({jt}) (lv ^ {LANES[jt].box}.MIN_VALUE)")


def vector_compare_loop(t, cmp, scalar):
    """One comparison's loop: 64 elements' compare masks as the bits of a long, then spread to
    bytes. The vectors of the 64 are written out, not looped over (up to 256-bit vectors; a loop
    over them serves narrower ones): C2 hoisted the inner loop's checks out of the outer loop by a
    profile that the first, long calls left behind, and when that speculation failed, as it did in
    about 1 JVM run in 5, the loop was recompiled without it and stayed ~40% slower (16M f64 > 0.5,
    6.1 against 4.3 ms). At 256 bits the masks are packed to bytes instead (vector_packed_loop)."""
    lanes = LANES[t.jtype]
    v, sp = lanes.vector, lanes.species
    name = f"{cmp.lower()}{'S' if scalar else 'A'}{t.name}"
    if scalar:
        params = f"MemorySegment a, long ao, MemorySegment o, long oo, long n, {lanes.jtype} v"
        setup = f"\n    {v} s = {v}.broadcast({sp}, v);"
        packed_args = "s"
    else:
        params = "MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n"
        setup = ""
        packed_args = f"b, bo + i * {t.size}"
    # the vectors of 64 elements at 256 bits; 512-bit ones need half of them
    count = 2 * t.size

    def term(m):
        off = f" + {m}L * {t.size} * {sp}.length()" if m else ""
        rhs = "s" if scalar else lane_load(t, "b", f"q{off}")
        shift = f" << ({m} * {sp}.length())" if m else ""
        return f"{lane_load(t, 'a', f'p{off}')}.compare(VectorOperators.{cmp}, {rhs}).toLong(){shift}"

    terms = [f"long bits = {term(0)};"]
    terms += [f"if ({m} * {sp}.length() < 64) {{\n    bits |= {term(m)};\n}}" for m in range(1, count)]
    loop_rhs = "s" if scalar else lane_load(t, "b", f"bo + (i + j) * {t.size}")
    loop = java("""
        private static void $name($params) {$setup
            if (B.length() == 32) {
                for (long i = 0, end = n & -64L; i < end; i += PART) {
                    ${name}Packed(a, ao + i * $size, $packed_args, o, oo + i, (int) (Math.min(end - i, PART) >>> 5));
                }
                return;
            }
            if ($count * $sp.length() < 64) {
                for (long i = 0; i + 64 <= n; i += 64) {
                    long bits = 0;
                    for (int j = 0; j < 64; j += $sp.length()) {
                        bits |= $lhs.compare(VectorOperators.$op, $loop_rhs).toLong() << j;
                    }
                    spread(o, oo + i, bits);
                }
                return;
            }
            for (long i = 0; i + 64 <= n; i += 64) {
                long p = ao + i * $size;$q
                $terms
                spread(o, oo + i, bits);
            }
        }""", name=name, params=params, setup=setup, sp=sp, op=cmp, lhs=lane_load(t, "a", f"ao + (i + j) * {t.size}"), loop_rhs=loop_rhs,
        count=count, size=t.size, q="" if scalar else f"\n        long q = bo + i * {t.size};", terms=terms, packed_args=packed_args)
    return loop + "\n\n" + vector_packed_loop(t, cmp, scalar, name)


def vector_packed_loop(t, cmp, scalar, name):
    """The loop of a comparison at 256 bits (AVX2), in blocks of 32 elements. 8-byte elements, and
    4-byte ones where pdep is slow, go 8 at a time (expanded_steps). Otherwise as numpy packs them:
    each of the block's vectors sets its own byte of the lanes where its comparison holds (blends
    into lanes of the element's size, or'ed), and one shuffle (PACK) puts the 32 bytes in element
    order. Moving a whole 64 elements' mask bits to bytes instead (movmsks, then a pdep a long, in a
    loop C2 did not count) took 60% more time a block on an AMD EPYC: 16M f64 > 0.5 from memory 8.3
    ms against 6.9."""
    if t.size == 8:
        return java("""
            private static void ${name}Packed(MemorySegment a, long ao, $rhs_param, MemorySegment o, long oo, int blocks) {
                $steps
            }""", name=name, rhs_param=packed_rhs_param(t, scalar), steps=expanded_steps(t, cmp, scalar))
    lanes = LANES[t.jtype]
    ints = LANES_OF_SIZE[t.size]
    count = t.size  # vectors a block: 32 elements of t.size bytes in 32-byte vectors

    def one(j):
        off = f" + {32 * j}" if j else ""
        rhs = "s" if scalar else lane_load(t, "b", f"q{off}")
        mask = f"{lane_load(t, 'a', f'p{off}')}.compare(VectorOperators.{cmp}, {rhs})"
        if lanes.species != ints.species:
            mask += f".cast({ints.species})"
        byte = {4: f"1 << {8 * j}", 2: f"(short) (1 << {8 * j})", 1: "(byte) 1"}[t.size] if j else \
            {4: "1", 2: "(short) 1", 1: "(byte) 1"}[t.size]
        return f"z.blend({byte}, {mask})"

    parts = [f"{ints.vector} r = {one(0)}"] + [f"        .or({one(j)})" for j in range(1, count)]
    parts[-1] += ";"
    bytes_expr = "r" if t.size == 1 else "r.reinterpretAsBytes()"
    store = f"{bytes_expr}.intoMemorySegment(o, oo + k * 32L, LE);" if t.size == 1 else \
        f"{bytes_expr}.rearrange(PACK_{t.size}).intoMemorySegment(o, oo + k * 32L, LE);"
    first = []
    if t.size == 4:
        first = ["if (!BitDeposit.FAST) {"] + ["    " + line for line in expanded_steps(t, cmp, scalar)] + ["    return;", "}"]
    first += [f"{ints.vector} z = {ints.vector}.zero({ints.species});"]
    return java("""
        private static void ${name}Packed(MemorySegment a, long ao, $rhs_param, MemorySegment o, long oo, int blocks) {
            $first
            for (int k = 0; k < blocks; k++) {
                long p = ao + k * $stride;$q
                $parts
                $store
            }
        }""", name=name, rhs_param=packed_rhs_param(t, scalar), stride=f"{32 * t.size}L",
        q="" if scalar else f"\n        long q = bo + k * {32 * t.size}L;", parts=parts, store=store, first=first)


def packed_rhs_param(t, scalar):
    return f"{LANES[t.jtype].vector} s" if scalar else "MemorySegment b, long bo"


def expanded_steps(t, cmp, scalar):
    """The loop of vector_packed_loop in steps of 8 elements: their mask bits (a movmsk a vector)
    become the 8 result bytes of one long store through BitDeposit.bytes, a pdep where it is fast,
    else a table's entry. For 8-byte elements on an AMD EPYC, bin/bench ops --calls 9 --only
    'a > 0.5' gave 1.05 and 1.08 of numpy's time with pdep (Zen 3), 1.23 and 1.19 with the blends
    (runs alternated). On a Zen 1 EPYC (pdep in microcode) the blends took 20-32 ms on 16M f64
    > 0.5, the table 14-17 ms, numpy's packs written in C 15-16 ms; on 32M f32 the blends 23-27 ms,
    the table 16-20 ms. 256-bit vectors only."""
    assert t.size in (4, 8), t
    vectors = 2 if t.size == 8 else 1
    stride = 8 * t.size

    def bits(j):
        off = f" + {32 * j}" if j else ""
        rhs = "s" if scalar else lane_load(t, "b", f"q{off}")
        shift = f" << {4 * j}" if j else ""
        return f"{lane_load(t, 'a', f'p{off}')}.compare(VectorOperators.{cmp}, {rhs}).toLong(){shift}"

    return java("""
        for (int k = 0, steps = blocks * 4; k < steps; k++) {
            long p = ao + k * ${stride}L;$q
            long bits = $bits;
            o.set(LONG_UNALIGNED, oo + k * 8L, BitDeposit.bytes(bits));
        }""", stride=stride, q="" if scalar else f"\n    long q = bo + k * {stride}L;",
        bits=" | ".join(bits(j) for j in range(vectors))).split("\n")


def vector_compare_dispatch(types, cmps, scalar):
    def call(t, cmp):
        if scalar:
            return f"{cmp.lower()}S{t.name}(a, ao, o, oo, n, {lane_arg(t)});"
        return f"{cmp.lower()}A{t.name}(a, ao, b, bo, o, oo, n);"
    arms = [((t.name,), block(cases("c", [((cmp,), call(t, cmp)) for cmp, _ in cmps]))) for t in types]
    sw = statement_switch("t", arms, "return false;")
    if scalar:
        return java("""
            @Override
            public boolean compareScalar(ElementType t, Cmp c, MemorySegment a, long ao, MemorySegment o, long oo, long n, double dv, long lv) {
                $switch
                return true;
            }""", switch=[sw])
    return java("""
        @Override
        public boolean compare(ElementType t, Cmp c, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n) {
            $switch
            return true;
        }""", switch=[sw])


def vector_where_loop(size, x_scalar, y_scalar):
    lanes = LANES_OF_SIZE[size]
    v, sp, jt = lanes.vector, lanes.species, lanes.jtype
    name = f"where{size}{'s' if x_scalar else 'a'}{'s' if y_scalar else 'a'}"
    setup = ""
    if x_scalar:
        setup += f"\n    {v} xs = {v}.broadcast({sp}, x.get({BITS[size][1]}, xo));"
    if y_scalar:
        setup += f"\n    {v} ys = {v}.broadcast({sp}, y.get({BITS[size][1]}, yo));"
    xv = "xs" if x_scalar else f"{v}.fromMemorySegment({sp}, x, xo + e, LE)"
    yv = "ys" if y_scalar else f"{v}.fromMemorySegment({sp}, y, yo + e, LE)"
    return java("""
        private static void $name(MemorySegment m, long mo, MemorySegment x, long xo, MemorySegment y, long yo, MemorySegment o, long oo, long n) {$setup
            for (long i = 0; i + 64 <= n; i += 64) {
                long bits = maskBits(m, mo + i);
                for (int j = 0; j < 64; j += $sp.length()) {
                    long e = (i + j) * $size;
                    $yv.blend($xv, VectorMask.fromLong($sp, bits >>> j)).intoMemorySegment(o, oo + e, LE);
                }
            }
        }""", name=name, setup=setup, sp=sp, v=v, size=size, xv=xv, yv=yv)


def vector_where_dispatch():
    arms = []
    for size in BITS:
        inner = cases("(xs == 0 ? 2 : 0) + (ys == 0 ? 1 : 0)", [
            (("0",), f"where{size}aa(m, mo, x, xo, y, yo, o, oo, n);"),
            (("1",), f"where{size}as(m, mo, x, xo, y, yo, o, oo, n);"),
            (("2",), f"where{size}sa(m, mo, x, xo, y, yo, o, oo, n);"),
        ], f"where{size}ss(m, mo, x, xo, y, yo, o, oo, n)")
        arms.append(((str(size),), block(inner)))
    return java("""
        @Override
        public boolean where(int size, MemorySegment m, long mo, MemorySegment x, long xo, long xs, MemorySegment y, long yo, long ys,
                             MemorySegment o, long oo, long n) {
            $switch
            return true;
        }""", switch=[statement_switch("size", arms, "return false;")])


def vector_logical(logics):
    arms = [((op,), f"{op.lower()}(a, ao, b, bo, o, oo, n);") for op, _ in logics]
    loops = []
    for op, _ in logics:
        if op == "NOT":
            expr = "ByteVector.fromMemorySegment(B, a, ao + i, LE).compare(VectorOperators.EQ, (byte) 0)"
        else:
            method = {"AND": "and", "OR": "or", "XOR": "xor"}[op]
            expr = (f"ByteVector.fromMemorySegment(B, a, ao + i, LE).compare(VectorOperators.NE, (byte) 0)\n"
                    f"        .{method}(ByteVector.fromMemorySegment(B, b, bo + i, LE).compare(VectorOperators.NE, (byte) 0))")
        loops.append(java("""
            private static void $name(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n) {
                ByteVector zero = ByteVector.zero(B);
                long end = n & -64L;
                for (long i = 0; i < end; i += B.length()) {
                    VectorMask<Byte> r = $expr;
                    zero.blend((byte) 1, r).intoMemorySegment(o, oo + i, LE);
                }
            }""", name=op.lower(), expr=[expr]))
    dispatch = java("""
        @Override
        public void logical(Logic op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment o, long oo, long n) {
            $switch
        }""", switch=[cases("op", arms)])
    return [dispatch] + loops


VECTOR_DOC = """
/**
 * SIMD loops (jdk.incubator.vector) of {@link ScalarMaskKernels}' operations on contiguous rows,
 * in blocks of 64 elements: each does the first {@code n & -64} elements of its row and leaves
 * the rest to the scalar loops ({@link MaskKernels} calls both). A block's 64 comparison
 * results are one long of mask bits, spread to 64 bytes (at 256 bits, 8-byte elements, and
 * 4-byte ones where {@link BitDeposit} finds pdep slow, go 8 at a time through
 * {@link BitDeposit#bytes}; other blocks of 32 are packed to bytes in vectors); a block of where
 * reads its 64 mask bytes as one long of bits. Loaded only when the JVM runs with
 * {@code --add-modules jdk.incubator.vector}.
 */"""

VECTOR_IMPORTS = [
    "import java.lang.foreign.MemorySegment;",
    "import java.lang.foreign.ValueLayout;",
    "import java.nio.ByteOrder;",
    "import jdk.incubator.vector.ByteVector;",
    "import jdk.incubator.vector.DoubleVector;",
    "import jdk.incubator.vector.FloatVector;",
    "import jdk.incubator.vector.IntVector;",
    "import jdk.incubator.vector.LongVector;",
    "import jdk.incubator.vector.ShortVector;",
    "import jdk.incubator.vector.VectorMask;",
    "import jdk.incubator.vector.VectorOperators;",
    "import jdk.incubator.vector.VectorShape;",
    "import jdk.incubator.vector.VectorShuffle;",
    "import jdk.incubator.vector.VectorSpecies;",
    "",
    "import static java.lang.foreign.ValueLayout.*;",
]

VECTOR_FIELDS = """
private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
private static final VectorSpecies<Short> S = ShortVector.SPECIES_PREFERRED;
/** At most 64 lanes: a mask of one vector must fit a long. */
private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED.length() <= 64 ? ByteVector.SPECIES_PREFERRED
        : VectorSpecies.of(byte.class, VectorShape.S_512_BIT);
private static final ValueLayout.OfLong LONG_UNALIGNED = JAVA_LONG_UNALIGNED;
/** The elements of a row a 256-bit comparison loop passes to one int-counted loop (C2 drops its bounds checks). */
private static final long PART = 1L << 30;
/**
 * The order of a block's 32 results at 256 bits: vector j of the block sets byte j of its lanes of
 * size bytes, so byte size * l + j holds element lanes * j + l; these put element p at byte p.
 */
private static final VectorShuffle<Byte> PACK_4 = pack(4);
private static final VectorShuffle<Byte> PACK_2 = pack(2);

private static VectorShuffle<Byte> pack(int size) {
    int lanes = 32 / size;
    return B.length() == 32 ? VectorShuffle.fromOp(B, p -> size * (p % lanes) + p / lanes) : null;
}

/**
 * Writes 64 mask bits as 64 bytes 0 or 1: with 64 byte lanes (AVX-512) one masked blend and one
 * store (12% faster than eight spread longs on 16M f64 compares); else each byte of a long is
 * one bit of the mask, spread.
 */
private static void spread(MemorySegment o, long off, long bits) {
    if (B.length() == 64) {
        ByteVector.zero(B).blend(ByteVector.broadcast(B, (byte) 1), VectorMask.fromLong(B, bits)).intoMemorySegment(o, off, LE);
        return;
    }
    for (int k = 0; k < 64; k += 8) {
        o.set(LONG_UNALIGNED, off + k, BitDeposit.bytes(bits >>> k));
    }
}

/** The 64 mask bytes from off as 64 bits, bit k set if byte k is nonzero. */
private static long maskBits(MemorySegment m, long off) {
    long bits = 0;
    for (int j = 0; j < 64; j += B.length()) {
        bits |= ByteVector.fromMemorySegment(B, m, off + j, LE).compare(VectorOperators.NE, (byte) 0).toLong() << j;
    }
    return bits;
}

@Override
public long count(MemorySegment m, long off, long n) {
    long c = 0;
    long end = n & -64L;
    for (long i = 0; i < end; i += B.length()) {
        c += ByteVector.fromMemorySegment(B, m, off + i, LE).compare(VectorOperators.NE, (byte) 0).trueCount();
    }
    return c;
}"""


def vector_mask_kernels(types, cmps, logics):
    simd = [t for t in types if not t.is_bool]
    members = [VECTOR_FIELDS.strip("\n")]
    members += [vector_compare_dispatch(simd, cmps, scalar=True)]
    members += [vector_compare_loop(t, cmp, True) for t in simd for cmp, _ in cmps]
    members += [vector_compare_dispatch(simd, cmps, scalar=False)]
    members += [vector_compare_loop(t, cmp, False) for t in simd for cmp, _ in cmps]
    members += [vector_where_dispatch()]
    members += [vector_where_loop(size, xs, ys) for size in BITS for xs in (False, True) for ys in (False, True)]
    members += vector_logical(logics)
    return mark_simd_loops(java_file(VECTOR_IMPORTS, VECTOR_DOC, "final class SimdMaskLoops implements SimdMaskKernels {", members))
