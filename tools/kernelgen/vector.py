"""SimdKernelLoops.java: SIMD loops for contiguous rows, each with its operator a constant."""
from dataclasses import dataclass

from .java import cases, java, java_file, mark_simd_loops, op_switch
from .scalar import operand
from .table import ARITH, REDUCTIONS, TableError


@dataclass(frozen=True)
class Lanes:
    jtype: str  # the Java primitive of one lane
    vector: str  # jdk.incubator.vector class
    species: str  # the VectorSpecies constant in SimdKernelLoops, also the loops' suffix
    box: str


LANES = {
    "double": Lanes("double", "DoubleVector", "D", "Double"),
    "float": Lanes("float", "FloatVector", "F", "Float"),
    "long": Lanes("long", "LongVector", "L", "Long"),
    "int": Lanes("int", "IntVector", "I", "Integer"),
}


def vector_ops(t):
    """The ops SimdKernelLoops has a SIMD loop for on contiguous rows of t. Unsigned types share the
    signed loops of wrapping add, sub and mul (same bits); integer division (floor, zero check),
    unsigned sums (widening) and unsigned min/max differ, so the scalar loops do those."""
    if t.jtype not in LANES:
        return ()
    arith = ARITH if t.is_float else ("ADD", "SUB", "MUL")
    return arith if t.kind == "u" else arith + REDUCTIONS


def lane_groups(types, ops):
    """[(types sharing one storage primitive, its Lanes, the ops of `ops` they have loops for)]."""
    groups = {}
    for t in types:
        mine = tuple(op for op in ops if op in vector_ops(t))
        if mine:
            groups.setdefault(t.jtype, []).append((t, mine))
    out = []
    for jtype, members in groups.items():
        if len({mine for _, mine in members}) != 1:
            raise TableError(f"types stored as {jtype} differ in their SIMD ops: {members}")
        out.append(([t for t, _ in members], LANES[jtype], members[0][1]))
    return out


def vector_handles(types, ops):
    by_types = {}
    for op in ops:
        names = tuple(t.name for t in types if op in vector_ops(t))
        if names:
            by_types.setdefault(names, []).append(op)
    arms = [(tuple(op_list), cases("t", [(names, "true")], "false", expr=True)) for names, op_list in by_types.items()]
    return java("""
        @Override
        public boolean handles(ElementType t, Op op) {
            return $switch;
        }""", switch=[cases("op", arms, "false", expr=True)])


def dispatch_on_lanes(groups, call):
    """switch (t) over lane groups, each a switch (op) over the group's ops; `call(lanes, op)`."""
    arms = [(tuple(t.name for t in ts), op_switch("t", [(op, call(lanes, op)) for op in ops], expr=True))
            for ts, lanes, ops in groups]
    return cases("t", arms, "throw Kernels.unsupported(t, op)", expr=True)


def vector_scalar(groups):
    sw = dispatch_on_lanes(groups, lambda l, op: f"{op.lower()}{l.species}(s, off, n, {operand(l.jtype)})")
    return java("""
        @Override
        public void scalar(ElementType t, Op op, MemorySegment s, long off, long n, double dv, long lv) {
            long o = $switch;
            int size = t.itemSize();
            long done = (o - off) / size;
            if (done < n) {
                ScalarKernels.scalar(t, op, s, o, size, n - done, dv, lv);
            }
        }""", switch=[sw])


BLOCK = 8


def written_out(statement):
    """BLOCK statements, the k-th with its offsets k vectors on: statement(p) gets p(var), the
    offset expression of var."""
    def at(k):
        return lambda var: var if k == 0 else f"{var} + step" if k == 1 else f"{var} + {k} * step"
    return "\n".join(statement(at(k)) for k in range(BLOCK))


def vector_scalar_loop(lanes, op, size):
    v, sp, m = lanes.vector, lanes.species, op.lower()
    return java("""
        private static long $m$sp(MemorySegment s, long off, long n, $jt v) {
            long step = $sp.vectorByteSize();
            long o = off;
            if (n * $size >= Kernels.BLOCKS_FROM) {
                for (long end = off + n * $size - BLOCK * step; o <= end; o += BLOCK * step) {
                    $block
                }
            }
            for (long end = off + n * $size - step; o <= end; o += step) {
                $v.fromMemorySegment($sp, s, o, LE).$m(v).intoMemorySegment(s, o, LE);
            }
            return o;
        }""", m=m, sp=sp, v=v, jt=lanes.jtype, size=size, block=[written_out(
        lambda p: f"{v}.fromMemorySegment({sp}, s, {p('o')}, LE).{m}(v).intoMemorySegment(s, {p('o')}, LE);")])


def vector_binary(groups):
    sw = dispatch_on_lanes(groups, lambda l, op: f"{op.lower()}{l.species}(a, ao, b, bo, n)")
    return java("""
        @Override
        public void binary(ElementType t, Op op, MemorySegment a, long ao, MemorySegment b, long bo, long n) {
            long x = $switch;
            int size = t.itemSize();
            long done = (x - ao) / size;
            if (done < n) {
                ScalarKernels.binary(t, op, a, x, size, b, bo + (x - ao), size, n - done);
            }
        }""", switch=[sw])


def vector_binary_loop(lanes, op, size):
    v, sp, m = lanes.vector, lanes.species, op.lower()
    return java("""
        private static long $m$sp(MemorySegment a, long ao, MemorySegment b, long bo, long n) {
            long step = $sp.vectorByteSize();
            long end = ao + n * $size - step;
            long x = ao;
            long y = bo;
            for (; x <= end; x += step, y += step) {
                $v.fromMemorySegment($sp, a, x, LE).$m($v.fromMemorySegment($sp, b, y, LE)).intoMemorySegment(a, x, LE);
            }
            return x;
        }""", m=m, sp=sp, v=v, size=size)


def vector_reduce(groups, result):
    sw = dispatch_on_lanes(groups, lambda l, op: f"{op.lower()}{l.species}(s, off, n)")
    method = "reduceFloat" if result == "double" else "reduceInt"
    return java("""
        @Override
        public $result $method(ElementType t, Op op, MemorySegment s, long off, long n) {
            return $switch;
        }""", result=result, method=method, switch=[sw])


def vector_sum_double(t):
    return java("""
        /** Blocks of vector partial sums, added across blocks with compensation (as ScalarKernels). */
        private static double sumD(MemorySegment s, long off, long n) {
            long step = D.vectorByteSize();
            double total = 0;
            double comp = 0;
            long i = 0;
            while (i < n) {
                long m = Math.min(4096, n - i);
                long o = off + i * 8;
                long end = o + m * 8 - 2 * step;
                DoubleVector s0 = DoubleVector.zero(D);
                DoubleVector s1 = DoubleVector.zero(D);
                for (; o <= end; o += 2 * step) {
                    s0 = s0.add(DoubleVector.fromMemorySegment(D, s, o, LE));
                    s1 = s1.add(DoubleVector.fromMemorySegment(D, s, o + step, LE));
                }
                double block = s0.add(s1).reduceLanes(VectorOperators.ADD);
                long done = (o - (off + i * 8)) / 8;
                if (done < m) {
                    block += ScalarKernels.sumFloat(ElementType.$name, s, o, 8, m - done);
                }
                double t = total + block;
                if (Double.isFinite(t)) {
                    // past an infinity the compensation would be inf - inf = NaN
                    comp += Math.abs(total) >= Math.abs(block) ? (total - t) + block : (block - t) + total;
                }
                total = t;
                i += m;
            }
            return total + comp;
        }""", name=t.name)


def vector_sum_strided_double(t):
    """Rows a few elements apart (every other column, say) summed from whole contiguous vectors:
    the lanes of each vector that hold row elements are the same every time, so the vectors add up
    lane by lane and only those lanes are reduced; the others' values never reach them. The same
    cache lines are read as by a strided loop, with a vector add per L elements instead of a scalar
    add per element."""
    return java("""
        @Override
        public boolean sumsStrided(ElementType t, long stride) {
            return t == ElementType.$name && stride > 8 && stride % 8 == 0 && D.length() % (stride / 8) == 0;
        }

        @Override
        public double sumStrided(ElementType t, MemorySegment s, long off, long stride, long n) {
            long step = D.vectorByteSize();
            long keep = 0;
            for (int lane = 0; lane < D.length(); lane += (int) (stride / 8)) {
                keep |= 1L << lane;
            }
            VectorMask<Double> lanes = VectorMask.fromLong(D, keep);
            double total = 0;
            double comp = 0;
            long i = 0;
            while (i < n) {
                long m = Math.min(4096, n - i);
                long start = off + i * stride;
                // whole vectors up to the block's last element, never past it
                long end = start + (m - 1) * stride + 8 - 2 * step;
                long o = start;
                DoubleVector s0 = DoubleVector.zero(D);
                DoubleVector s1 = DoubleVector.zero(D);
                for (; o <= end; o += 2 * step) {
                    s0 = s0.add(DoubleVector.fromMemorySegment(D, s, o, LE));
                    s1 = s1.add(DoubleVector.fromMemorySegment(D, s, o + step, LE));
                }
                double block = s0.add(s1).reduceLanes(VectorOperators.ADD, lanes);
                long done = (o - start) / stride;
                if (done < m) {
                    block += ScalarKernels.sumFloat(ElementType.$name, s, start + done * stride, stride, m - done);
                }
                double sum = total + block;
                if (Double.isFinite(sum)) {
                    comp += Math.abs(total) >= Math.abs(block) ? (total - sum) + block : (block - sum) + total;
                }
                total = sum;
                i += m;
            }
            return total + comp;
        }""", name=t.name)


def vector_sum_float(t):
    """Floats are summed in double lanes, as the scalar loop does."""
    return java("""
        private static double sumF(MemorySegment s, long off, long n) {
            long step = F.vectorByteSize();
            long end = off + n * 4 - step;
            long o = off;
            DoubleVector a0 = DoubleVector.zero(D);
            DoubleVector a1 = DoubleVector.zero(D);
            for (; o <= end; o += step) {
                FloatVector v = FloatVector.fromMemorySegment(F, s, o, LE);
                a0 = a0.add((DoubleVector) v.convertShape(VectorOperators.F2D, D, 0));
                a1 = a1.add((DoubleVector) v.convertShape(VectorOperators.F2D, D, 1));
            }
            double r = a0.add(a1).reduceLanes(VectorOperators.ADD);
            long done = (o - off) / 4;
            return done < n ? r + ScalarKernels.sumFloat(ElementType.$name, s, o, 4, n - done) : r;
        }""", name=t.name)


def vector_minmax_float(t, op):
    # compare-and-blend is cheaper than the Math.min lanes, but skips NaNs: a running sum (NaN if
    # any element is) tells when to let the NaN-propagating scalar loop answer instead
    lanes = LANES[t.jtype]
    v, sp, mm, size = lanes.vector, lanes.species, op.lower(), t.size
    loads = "\n".join(f"{v} x{k} = {v}.fromMemorySegment({sp}, s, o + {k} * step, LE);" for k in range(4))
    cmp = "LT" if op == "MIN" else "GT"
    blends = "\n".join(f"m{k} = m{k}.blend(x{k}, x{k}.compare(VectorOperators.{cmp}, m{k}));" for k in range(4))
    return java("""
        private static double $mm$sp(MemorySegment s, long off, long n) {
            long step = $sp.vectorByteSize();
            long end = off + n * $size - 4 * step;
            long o = off;
            $v m0 = $v.broadcast($sp, $box.$inf);
            $v m1 = m0;
            $v m2 = m0;
            $v m3 = m0;
            $v probe = $v.zero($sp);
            for (; o <= end; o += 4 * step) {
                $loads
                $blends
                probe = probe.add(x0.add(x1).add(x2.add(x3)));
            }
            double r = m0.$mm(m1).$mm(m2.$mm(m3)).reduceLanes(VectorOperators.$op);
            if (Double.isNaN(probe.reduceLanes(VectorOperators.ADD))) {
                // a NaN, or infinities of both signs: the scalar loop decides
                return ScalarKernels.${mm}Float(ElementType.$name, s, off, $size, n);
            }
            long done = (o - off) / $size;
            if (done < n) {
                r = Math.$mm(r, ScalarKernels.${mm}Float(ElementType.$name, s, o, $size, n - done));
            }
            return r;
        }""", mm=mm, sp=sp, v=v, size=size, box=lanes.box, op=op, name=t.name, loads=[loads], blends=[blends],
                inf="POSITIVE_INFINITY" if op == "MIN" else "NEGATIVE_INFINITY")


def vector_sum_widening_int(t):
    """Ints are summed in long lanes: the sum wraps at 64 bits, as the scalar loop's. Two whole int
    vectors a pass, each widened in its two halves into four accumulators: with one half-width load
    a pass the loop did not keep up with memory (i32 sum 1.26x numpy on an AVX2 machine)."""
    return java("""
        private static long sumI(MemorySegment s, long off, long n) {
            long step = I.vectorByteSize();
            long end = off + n * 4 - 2 * step;
            long o = off;
            LongVector a0 = LongVector.zero(L);
            LongVector a1 = LongVector.zero(L);
            LongVector a2 = LongVector.zero(L);
            LongVector a3 = LongVector.zero(L);
            for (; o <= end; o += 2 * step) {
                IntVector x = IntVector.fromMemorySegment(I, s, o, LE);
                IntVector y = IntVector.fromMemorySegment(I, s, o + step, LE);
                a0 = a0.add((LongVector) x.convertShape(VectorOperators.I2L, L, 0));
                a1 = a1.add((LongVector) x.convertShape(VectorOperators.I2L, L, 1));
                a2 = a2.add((LongVector) y.convertShape(VectorOperators.I2L, L, 0));
                a3 = a3.add((LongVector) y.convertShape(VectorOperators.I2L, L, 1));
            }
            long r = a0.add(a1).add(a2.add(a3)).reduceLanes(VectorOperators.ADD);
            long done = (o - off) / 4;
            return done < n ? r + ScalarKernels.sumInt(ElementType.$name, s, o, 4, n - done) : r;
        }""", name=t.name)


def vector_reduce_int_loop(t, op):
    if op == "SUM" and t.jtype == "int":
        return vector_sum_widening_int(t)
    lanes = LANES[t.jtype]
    v, sp, size = lanes.vector, lanes.species, t.size
    if op == "SUM":
        init, call, tail = f"{v}.zero({sp})", "add", "r += {}"
    else:
        bound = "MAX_VALUE" if op == "MIN" else "MIN_VALUE"
        init, call, tail = f"{v}.broadcast({sp}, {lanes.box}.{bound})", op.lower(), f"r = Math.{op.lower()}(r, {{}})"
    scalar = f"ScalarKernels.{op.lower()}Int(ElementType.{t.name}, s, o, {size}, n - done)"
    return java("""
        private static long $m$sp(MemorySegment s, long off, long n) {
            long step = $sp.vectorByteSize();
            long end = off + n * $size - step;
            long o = off;
            $v acc = $init;
            for (; o <= end; o += step) {
                acc = acc.$call($v.fromMemorySegment($sp, s, o, LE));
            }
            long r = acc.reduceLanes(VectorOperators.$red);
            long done = (o - off) / $size;
            if (done < n) {
                $tail;
            }
            return r;
        }""", m=op.lower(), sp=sp, v=v, size=size, init=init, call=call, red="ADD" if op == "SUM" else op,
                tail=tail.format(scalar))


VECTOR_DOC = """
/**
 * SIMD loops (jdk.incubator.vector) for contiguous rows of F64, F32, I64/U64 and I32/U32. Loaded
 * only when the JVM runs with {@code --add-modules jdk.incubator.vector}; tails and every other
 * case go to {@link ScalarKernels}. Every loop names its operator as a constant: C2 compiles the
 * Vector API to SIMD instructions only then, so the switches pick a loop once per row.
 */"""

VECTOR_IMPORTS = [
    "import java.lang.foreign.MemorySegment;",
    "import java.nio.ByteOrder;",
    "import jdk.incubator.vector.DoubleVector;",
    "import jdk.incubator.vector.FloatVector;",
    "import jdk.incubator.vector.IntVector;",
    "import jdk.incubator.vector.LongVector;",
    "import jdk.incubator.vector.VectorMask;",
    "import jdk.incubator.vector.VectorOperators;",
    "import jdk.incubator.vector.VectorSpecies;",
]

VECTOR_FIELDS = """
private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
/** Ints with as many lanes as L, to widen into longs for sums. */
/**
 * Vectors written out in each pass of the in-place loops with a scalar operand, over rows of
 * {@link Kernels#BLOCKS_FROM} bytes or more. With one vector a pass, about one compilation of
 * such a loop in five ran 35-50% slower for the JVM's life on long rows (f64 {@code a *= 2.5} on
 * 512 MiB: 24-28 ms against 17-18, in 11 of 50 JVMs; the same instructions, its hot samples on
 * one store of the 64 C2 unrolls); with eight, none in 48. Rows of 2000 doubles showed no such
 * JVM and ran 5-10% slower written out; the loops with an array operand showed none either, and
 * written out they made matrix += row 13% slower.
 */
private static final int BLOCK = """ + str(BLOCK) + ";"


def vector_kernels(types, ops):
    arith = lane_groups(types, ARITH)
    # each storage primitive's loops are written once, at the size of its first type
    loops = [(lanes, op, ts[0].size) for ts, lanes, group_ops in arith for op in group_ops]
    float_red = lane_groups([t for t in types if t.is_float], REDUCTIONS)
    int_red = lane_groups([t for t in types if not t.is_float], REDUCTIONS)
    members = [VECTOR_FIELDS.strip("\n"), vector_handles(types, ops)]
    members += [vector_scalar(arith)] + [vector_scalar_loop(*loop) for loop in loops]
    members += [vector_binary(arith)] + [vector_binary_loop(*loop) for loop in loops]
    members += [vector_reduce(float_red, "double")]
    for ts, _, _ in float_red:
        t = ts[0]
        members += [vector_sum_double(t) if t.jtype == "double" else vector_sum_float(t)]
    members += [vector_sum_strided_double(ts[0]) for ts, _, _ in float_red if ts[0].jtype == "double"]
    members += [vector_minmax_float(ts[0], op) for ts, _, _ in float_red for op in ("MIN", "MAX")]
    members += [vector_reduce(int_red, "long")]
    members += [vector_reduce_int_loop(ts[0], op) for ts, _, _ in int_red for op in REDUCTIONS]
    return mark_simd_loops(java_file(VECTOR_IMPORTS, VECTOR_DOC, "final class SimdKernelLoops implements SimdKernels {", members))
