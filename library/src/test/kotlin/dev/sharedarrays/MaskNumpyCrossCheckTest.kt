package dev.sharedarrays

import dev.sharedarrays.testing.RandomViews
import dev.sharedarrays.testing.RefMath
import dev.sharedarrays.testing.compare
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * Comparisons, where, masks and logic on the same data and the same views, in numpy (one python3
 * process, numpy 2's scalar rules) and here: every result bit-identical.
 */
class MaskNumpyCrossCheckTest : FunSpec({
    val script = """
        import json, sys
        import numpy as np
        spec = json.load(open(sys.argv[1]))
        out = sys.argv[2]
        cmp = {'gt': np.greater, 'lt': np.less, 'ge': np.greater_equal, 'le': np.less_equal,
               'eq': np.equal, 'ne': np.not_equal}
        def view(x, steps):
            for s in steps:
                if s[0] == 's':
                    x = x[(slice(None),) * s[1] + (slice(s[2], s[3], s[4]),)]
                else:
                    x = x.transpose(s[1])
            return x
        def scalar(a, s, kind, stored=False):
            if kind == 'float': return float(s)
            # a Python int compares as an integer, and a bool is what where stores into a bool array
            if stored and a.dtype.kind == 'b': return bool(int(s))
            return int(s)
        for k, sc in enumerate(spec):
            a, b, m = (np.load(sc[x]) for x in ('a', 'b', 'm'))
            for j, op in enumerate(sc['ops']):
                va, vb, vm = (view(x, op['view']) for x in (a, b, m))
                name, kind, s = op['op'], op.get('kind'), op.get('scalar')
                if name in cmp:
                    r = cmp[name](va, vb) if kind == 'array' else cmp[name](va, scalar(va, s, kind))
                elif name == 'where':
                    r = np.where(vm, va, vb)
                elif name == 'wheres':
                    r = np.where(vm, scalar(va, s, kind, True), va)
                elif name == 'masked':
                    r = va[vm]
                elif name == 'not':
                    r = np.logical_not(vm)
                else:
                    r = {'and': np.logical_and, 'or': np.logical_or, 'xor': np.logical_xor}[name](vm, va > vb)
                np.ascontiguousarray(r).tofile('%s/r%d_%d.bin' % (out, k, j))
        print('done')
    """.trimIndent()

    class Op(val view: List<List<Any?>>, val op: String, val kind: String?, val scalar: String?, val result: ByteArray)

    fun jsonValue(v: Any?): String = when (v) {
        null -> "null"
        is String -> "\"$v\""
        is List<*> -> v.joinToString(",", "[", "]") { jsonValue(it) }
        else -> v.toString()
    }

    @Suppress("UNCHECKED_CAST")
    fun <T : DType<T>> SharedNDArray<*>.typed(): SharedNDArray<T> = this as SharedNDArray<T>

    fun bytes(r: SharedNDArray<*>): ByteArray = r.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)

    test("comparisons, where, a[mask] and logic give numpy's results, bit for bit") {
        val rnd = Random(20261123)
        val dir = scratchDir("maskcheck")
        val arrays = mutableListOf<SharedNDArray<*>>()
        val scenarios = mutableListOf<Pair<List<SharedNDArray<*>>, List<Op>>>()
        try {
            repeat(60) {
                val t = DType.all()[rnd.nextInt(DType.all().size)]
                val nd = 1 + rnd.nextInt(3)
                val shape = LongArray(nd) { if (it == nd - 1) 1L + rnd.nextInt(150) else 1L + rnd.nextInt(5) }
                val shm = CreateOptions.defaults().backend(Backend.SHM)
                val a = SharedArrays.createAny(t, shape, shm).also { arrays += it }
                val b = SharedArrays.createAny(t, shape, shm).also { arrays += it }
                val m = SharedArrays.create(Bool.TYPE, shape, shm).also { arrays += it }
                fun fill(x: SharedNDArray<*>) {
                    for (i in 0 until x.size()) {
                        when {
                            t.isFloatingPoint -> x.setDouble(i, when (rnd.nextInt(8)) {
                                0 -> Double.NaN
                                1 -> listOf(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.5)[rnd.nextInt(4)]
                                2, 3 -> rnd.nextInt(-3, 4).toDouble()
                                else -> rnd.nextDouble(-10.0, 10.0)
                            })
                            t.isBool -> x.setLong(i, rnd.nextLong(2))
                            else -> {
                                val (lo, hi) = RefMath.range(t)
                                x.setLong(i, if (rnd.nextBoolean()) rnd.nextLong() else rnd.nextLong(maxOf(lo, -3), minOf(hi, 3) + 1))
                            }
                        }
                    }
                }
                fill(a)
                fill(b)
                for (i in 0 until m.size()) m.setLong(i, if (rnd.nextInt(3) == 0) 1 else 0)
                val ops = mutableListOf<Op>()
                repeat(6) {
                    val (steps, _) = RandomViews.of(rnd, shape)
                    val va = RandomViews.replay(a, steps)
                    val vb = RandomViews.replay(b, steps)
                    val vm = RandomViews.replay(m, steps)
                    val c = listOf("gt", "lt", "ge", "le", "eq", "ne")[rnd.nextInt(6)]
                    when (rnd.nextInt(7)) {
                        0 -> {
                            val s = listOf(0.5, -1.0, 0.0, 2.0, 1e19, -2.5, Double.NaN, Double.POSITIVE_INFINITY, 3e9)[rnd.nextInt(9)]
                            ops += Op(steps, c, "float", s.toString(), bytes(compare(c, va, s)))
                        }
                        1 -> {
                            val s = listOf(0L, 1L, -1L, 2L, 300L, -129L, 70000L, Long.MIN_VALUE, Long.MAX_VALUE)[rnd.nextInt(9)]
                            ops += Op(steps, c, "int", s.toString(), bytes(compare(c, va, s)))
                        }
                        2 -> ops += Op(steps, c, "array", null, bytes(compare(c, va.typed<F64>(), vb.typed<F64>())))
                        3 -> ops += Op(steps, "where", null, null, bytes(Masks.where(vm, va.typed<F64>(), vb.typed<F64>())))
                        4 -> {
                            if (t.isFloatingPoint) {
                                val s = listOf(0.25, -0.0, Double.NaN, 1e300)[rnd.nextInt(4)]
                                ops += Op(steps, "wheres", "float", s.toString(), bytes(Masks.where(vm, s, va.typed<F64>())))
                            } else {
                                val s = if (t.isBool) rnd.nextLong(2) else rnd.nextLong(if (t.isUnsigned) 0L else -3L, 4L)
                                ops += Op(steps, "wheres", "int", s.toString(), bytes(Masks.where(vm, s, va.typed<F64>())))
                            }
                        }
                        5 -> if (vm.sum() > 0) ops += Op(steps, "masked", null, null, bytes(va.masked(vm)))
                        else -> {
                            val l = listOf("and", "or", "xor", "not")[rnd.nextInt(4)]
                            val other = va.typed<F64>().gt(vb.typed<F64>())
                            val r = when (l) { "and" -> vm.and(other); "or" -> vm.or(other); "xor" -> vm.xor(other); else -> vm.not() }
                            ops += Op(steps, l, null, null, bytes(r))
                        }
                    }
                }
                scenarios += listOf(a, b, m) to ops
            }
            val spec = scenarios.joinToString(",", "[", "]") { (abm, ops) ->
                "{\"a\":\"${abm[0].path().get()}\",\"b\":\"${abm[1].path().get()}\",\"m\":\"${abm[2].path().get()}\",\"ops\":" +
                    ops.joinToString(",", "[", "]") { op ->
                        "{\"view\":${jsonValue(op.view)},\"op\":\"${op.op}\"" + (op.kind?.let { ",\"kind\":\"$it\"" } ?: "") +
                            (op.scalar?.let { ",\"scalar\":\"$it\"" } ?: "") + "}"
                    } + "}"
            }
            val specFile = File(dir, "spec.json").apply { writeText(spec) }
            val p = ProcessBuilder("python3", "-c", script, specFile.path, dir.path).redirectErrorStream(true).start()
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(300, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n$text")
            for ((k, sc) in scenarios.withIndex()) {
                val (abm, ops) = sc
                for ((j, op) in ops.withIndex()) {
                    withClue("scenario $k op $j: ${abm[0].dtype()} ${abm[0].shape().toList()} ${op.view} ${op.op} ${op.kind} ${op.scalar}") {
                        val numpy = File(dir, "r${k}_$j.bin").readBytes()
                        op.result.toList() shouldBe numpy.toList()
                    }
                }
            }
        } finally {
            arrays.forEach { it.close() }
            dir.deleteRecursively()
        }
    }
})
