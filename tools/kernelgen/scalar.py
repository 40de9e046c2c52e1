"""ScalarKernels.java: every op's loop for every element type, contiguous, every other element and strided."""
from .java import block, cases, java, java_file, op_switch
from .table import ARITH, BINARY, SYMBOL


def op_expr(t, op, x, s):
    """x (op) s in t's storage type: wrapping for integers, floor division (unsigned for u)."""
    if t.is_float:
        e = f"{x} {SYMBOL[op]} {s}"
        return f"(float) ({e})" if t.jtype == "float" else e
    if op == "DIV":
        if t.is_u64:
            return f"Long.divideUnsigned({x}, {s})"
        if t.kind == "u":
            return f"({t.jtype}) ({t.widen(x)} / {s})"
        return f"({t.jtype}) Math.floorDiv({t.widen(x)}, {s})"
    e = f"{x} {SYMBOL[op]} {s}"
    return f"({t.jtype}) ({e})" if t.jtype in ("short", "byte") else e


def operand_type(t, op):
    """Type of the scalar operand as the loop uses it (narrow types compute in int, division in long)."""
    if t.is_float:
        return t.jtype
    if op == "DIV":
        return "long"
    return "int" if t.jtype in ("short", "byte") else t.jtype


def operand(jtype):
    """The scalar argument (dv for floats, lv for integers) converted to jtype."""
    return {"double": "dv", "float": "(float) dv", "long": "lv"}.get(jtype, f"({jtype}) lv")


def scalar_fill(types):
    def value(t):
        return "lv != 0 ? (byte) 1 : 0" if t.is_bool else operand(t.jtype)
    arms = [((t.name,), java("""
        {
            $jt v = $val;
            for (long i = 0, o = off; i < n; i++, o += stride) {
                s.set($lay, o, v);
            }
        }""", jt=t.jtype, val=value(t), lay=t.layout)) for t in types]
    return java("""
        static void fill(ElementType t, MemorySegment s, long off, long stride, long n, double dv, long lv) {
            $switch
        }""", switch=[cases("t", arms)])


def scalar_ops_dispatch(types):
    def call(t, op):
        return f"{op.lower()}{t.name}(s, off, stride, n, {operand(operand_type(t, op))});"
    arms = [((t.name,), block(op_switch("t", [(op, call(t, op)) for op in ARITH], expr=False))) for t in types
            if not t.is_bool]
    return java("""
        /** In place: element = element (op) scalar; dv for float types, lv (in range) for integer types. */
        static void scalar(ElementType t, Op op, MemorySegment s, long off, long stride, long n, double dv, long lv) {
            $switch
        }""", switch=[cases("t", arms)])


def scalar_op_loop(t, op):
    """Every other element (a [::2] view, a column of two) takes an int loop whose index has a
    constant scale, for the reason SCALAR_DOC gives; a scale read from the stride kept the checks
    (docs/BENCHMARKS.md has the figures)."""
    lay = t.layout
    return java("""
        private static void $name(MemorySegment s, long off, long stride, long n, $st v) {
            if (stride == $size) {
                long b = off / $size;
                for (long i = 0; i < n; i++) {
                    s.setAtIndex($lay, b + i, $contiguous);
                }
            } else if (stride == 2 * $size) {
                for (long done = 0; done < n; done += EVERY_OTHER_PART) {
                    long b = off / $size + 2 * done;
                    int m = (int) Math.min(n - done, EVERY_OTHER_PART);
                    for (int i = 0; i < m; i++) {
                        s.setAtIndex($lay, b + 2 * i, $everyOther);
                    }
                }
            } else {
                for (long i = 0, o = off; i < n; i++, o += stride) {
                    s.set($lay, o, $strided);
                }
            }
        }""", name=f"{op.lower()}{t.name}", st=operand_type(t, op), size=t.size, lay=lay,
                contiguous=op_expr(t, op, f"s.getAtIndex({lay}, b + i)", "v"),
                everyOther=op_expr(t, op, f"s.getAtIndex({lay}, b + 2 * i)", "v"),
                strided=op_expr(t, op, f"s.get({lay}, o)", "v"))


def binary_ops(t):
    """Bool arrays only copy: their arithmetic is refused before the kernels."""
    return ("ASSIGN",) if t.is_bool else BINARY


def binary_dispatch(types):
    def call(t, op):
        return f"{op.lower()}{t.name}(a, ao, as, b, bo, bs, n);"
    arms = [((t.name,), block(op_switch("t", [(op, call(t, op)) for op in binary_ops(t)], expr=False))) for t in types]
    return java("""
        /** In place: a = a (op) b element by element, or a = b for ASSIGN. */
        static void binary(ElementType t, Op op, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, long n) {
            $switch
        }""", switch=[cases("t", arms)])


def binary_loop(t, op):
    lay, size, name = t.layout, t.size, f"{op.lower()}{t.name}"
    if op == "ASSIGN":
        return java("""
            private static void $name(MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, long n) {
                if (as == $size && bs == $size) {
                    MemorySegment.copy(b, bo, a, ao, n * $size);
                    return;
                }
                for (long i = 0, x = ao, y = bo; i < n; i++, x += as, y += bs) {
                    a.set($lay, x, b.get($lay, y));
                }
            }""", name=name, size=size, lay=lay)

    def expr(a, b):
        rhs = t.widen(b) if op == "DIV" and not t.is_float and not t.is_u64 else b
        return op_expr(t, op, a, rhs)
    return java("""
        private static void $name(MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs, long n) {
            if (as == $size && bs == $size) {
                long xa = ao / $size;
                long yb = bo / $size;
                for (long i = 0; i < n; i++) {
                    a.setAtIndex($lay, xa + i, $contiguous);
                }
            } else {
                for (long i = 0, x = ao, y = bo; i < n; i++, x += as, y += bs) {
                    a.set($lay, x, $strided);
                }
            }
        }""", name=name, size=size, lay=lay,
                contiguous=expr(f"a.getAtIndex({lay}, xa + i)", f"b.getAtIndex({lay}, yb + i)"),
                strided=expr(f"a.get({lay}, x)", f"b.get({lay}, y)"))


def reduction_dispatch(types, op, result, family, doc):
    arms = [((t.name,), f"{op.lower()}{t.name}(s, off, stride, n)") for t in types]
    return java("""
        /** $doc */
        static $result $method(ElementType t, MemorySegment s, long off, long stride, long n) {
            return $switch;
        }""", doc=doc, result=result, method=op.lower() + family,
                switch=[cases("t", arms, f"throw Kernels.unsupported(t, Op.{op})", expr=True)])


def sum_float_loop(t):
    lay, size = t.layout, t.size
    blocked = "\n".join(f"s{k} += s.get({lay}, o + {k * size});" for k in range(8))
    strided = "\n".join(f"s{k} += s.get({lay}, o + {k} * stride);" for k in range(4))
    return java("""
        private static double sum$name(MemorySegment s, long off, long stride, long n) {
            double total = 0;
            double comp = 0;
            long i = 0;
            while (i < n) {
                long m = Math.min(4096, n - i);
                long o = off + i * stride;
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
                long j = 0;
                if (stride == $size) {
                    for (; j + 8 <= m; j += 8, o += $block) {
                        $blocked
                    }
                } else {
                    // independent sums hide the latency of the adds
                    for (; j + 4 <= m; j += 4, o += 4 * stride) {
                        $strided
                    }
                }
                for (; j < m; j++, o += stride) {
                    s0 += s.get($lay, o);
                }
                double block = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
                double t = total + block;
                if (Double.isFinite(t)) {
                    // past an infinity the compensation would be inf - inf = NaN
                    comp += Math.abs(total) >= Math.abs(block) ? (total - t) + block : (block - t) + total;
                }
                total = t;
                i += m;
            }
            return total + comp;
        }""", name=t.name, size=size, block=8 * size, lay=lay, blocked=[blocked], strided=[strided])


def sum_int_loop(t):
    lay = t.layout
    return java("""
        private static long sum$name(MemorySegment s, long off, long stride, long n) {
            long s0 = 0, s1 = 0;
            long i = 0;
            long o = off;
            if (stride == $size) {
                long b = off / $size;
                for (; i < n; i++) {
                    s0 += $contiguous;
                }
                return s0;
            }
            for (; i < n; i++, o += stride) {
                s0 += $strided;
            }
            return s0 + s1;
        }""", name=t.name, size=t.size, contiguous=t.widen(f"s.getAtIndex({lay}, b + i)"),
                strided=t.widen(f"s.get({lay}, o)"))


def minmax_float_loop(t, op):
    mm, cmp, lay, size = op.lower(), "<" if op == "MIN" else ">", t.layout, t.size
    loads = "\n".join(f"double x{k} = s.getAtIndex({lay}, b + i + {k});" for k in range(4))
    picks = "\n".join(f"m{k} = x{k} {cmp} m{k} ? x{k} : m{k};" for k in range(4))
    return java("""
        private static double $mm$name(MemorySegment s, long off, long stride, long n) {
            if (stride == $size) {
                // four running ${mm}s and a running sum, which is NaN if any element is (or if
                // infinities of both signs meet: then the checked loop below decides)
                long b = off / $size;
                double m0 = s.getAtIndex($lay, b), m1 = m0, m2 = m0, m3 = m0, probe = 0;
                long i = 1;
                for (; i + 4 <= n; i += 4) {
                    $loads
                    $picks
                    probe += (x0 + x1) + (x2 + x3);
                }
                for (; i < n; i++) {
                    double x = s.getAtIndex($lay, b + i);
                    m0 = x $cmp m0 ? x : m0;
                    probe += x;
                }
                if (!Double.isNaN(probe) && !Double.isNaN(m0)) {
                    return Math.$mm(Math.$mm(m0, m1), Math.$mm(m2, m3));
                }
            }
            double m = s.get($lay, off);
            for (long i = 1, o = off + stride; i < n && m == m; i++, o += stride) {
                double x = s.get($lay, o);
                m = x $cmp m || x != x ? x : m;
            }
            return m;
        }""", mm=mm, name=t.name, size=size, lay=lay, cmp=cmp, loads=[loads], picks=[picks])


def minmax_int_loop(t, op):
    mm, cmp, lay = op.lower(), "<" if op == "MIN" else ">", t.layout
    if t.is_u64:
        # flipping the sign bit makes signed comparison order the values as unsigned
        return java("""
            private static long $mm$name(MemorySegment s, long off, long stride, long n) {
                long m = s.get($lay, off) ^ Long.MIN_VALUE;
                for (long i = 1, o = off + stride; i < n; i++, o += stride) {
                    long x = s.get($lay, o) ^ Long.MIN_VALUE;
                    m = x $cmp m ? x : m;
                }
                return m ^ Long.MIN_VALUE;
            }""", mm=mm, name=t.name, lay=lay, cmp=cmp)
    return java("""
        private static long $mm$name(MemorySegment s, long off, long stride, long n) {
            long m = $first;
            for (long i = 1, o = off + stride; i < n; i++, o += stride) {
                long x = $next;
                m = x $cmp m ? x : m;
            }
            return m;
        }""", mm=mm, name=t.name, cmp=cmp, first=t.widen(f"s.get({lay}, off)"), next=t.widen(f"s.get({lay}, o)"))


def any_zero(types):
    arms = [java("""
        case $name -> {
            for (long i = 0, o = off; i < n; i++, o += stride) {
                if (s.get($lay, o) == 0) {
                    yield true;
                }
            }
            yield false;
        }""", name=t.name, lay=t.layout) for t in types if not t.is_float]
    return java("""
        /** True if an integer row holds a zero (checked before integer division). */
        static boolean anyZero(ElementType t, MemorySegment s, long off, long stride, long n) {
            return switch (t) {
                $arms
                default -> false;
            };
        }""", arms=arms)


SCALAR_DOC = """
/**
 * The element loops of every operation for every element type, on one row: n elements from
 * byte offset off, byte stride stride apart. Each loop has a contiguous fast path (stride ==
 * item size) and a strided path; in-place arithmetic with a scalar also has a path for every
 * other element (stride == 2 item sizes), an int loop whose index has a constant scale, as C2
 * drops the per-access bounds and alignment checks only for such an index (the strided path,
 * whose offset grows by a variable step, keeps them). Integer arithmetic wraps in the element
 * width; integer division is floor division (numpy's //), unsigned for unsigned types, and its
 * divisor was checked for zero before the call. Float reductions are NaN-propagating like
 * numpy's. BOOL has fill, copy and the integer reductions (a sum counts the nonzero elements).
 */"""


def scalar_kernels(types):
    floats = [t for t in types if t.is_float]
    ints = [t for t in types if not t.is_float]
    members = ["/** Elements of an every-other-element loop's int index: 2 * i stays an int. */\n"
               "private static final int EVERY_OTHER_PART = 1 << 30;",
               "private ScalarKernels() {\n}", scalar_fill(types), scalar_ops_dispatch(types)]
    members += [scalar_op_loop(t, op) for t in types if not t.is_bool for op in ARITH]
    members += [binary_dispatch(types)]
    members += [binary_loop(t, op) for t in types for op in binary_ops(t)]
    members += [reduction_dispatch(floats, "SUM", "double", "Float",
                                   "Sum of a float row in double: blocks of 8 accumulators, blocks added with compensation.")]
    members += [sum_float_loop(t) for t in floats]
    members += [reduction_dispatch(ints, "SUM", "long", "Int",
                                   "Sum of an integer row as a wrapping 64-bit sum of the element values (numpy's int64/uint64 sum).")]
    members += [sum_int_loop(t) for t in ints]
    for op in ("MIN", "MAX"):
        mm = op.lower()
        members += [reduction_dispatch(floats, op, "double", "Float", f"{mm} of a float row; NaN if any element is NaN (numpy's rule).")]
        members += [minmax_float_loop(t, op) for t in floats]
        members += [reduction_dispatch(ints, op, "long", "Int", f"{mm} of an integer row as its value (U64: its bit pattern, compared unsigned).")]
        members += [minmax_int_loop(t, op) for t in ints]
    members += [any_zero(types)]
    return java_file(["import java.lang.foreign.MemorySegment;", "", "import static java.lang.foreign.ValueLayout.*;"],
                     SCALAR_DOC, "final class ScalarKernels {", members)
