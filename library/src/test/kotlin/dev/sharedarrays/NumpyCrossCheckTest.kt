package dev.sharedarrays

import dev.sharedarrays.testing.RandomViews
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.io.File
import java.math.BigInteger
import java.util.concurrent.TimeUnit
import kotlin.math.abs
import kotlin.random.Random

/**
 * The same random sequences of in-place operations and reductions, on the same data, in numpy
 * (one python3 process) and here: element results bit-identical, reductions within 1e-12.
 */
class NumpyCrossCheckTest : FunSpec({
    val script = """
        import json, sys
        import numpy as np
        spec = json.load(open(sys.argv[1]))
        out_dir = sys.argv[2]
        results = []
        def view(x, steps):
            for s in steps:
                if s[0] == 's':
                    x = x[(slice(None),) * s[1] + (slice(s[2], s[3], s[4]),)]
                elif s[0] == 't':
                    x = x.transpose(s[1])
                else:
                    x = x[(slice(None),) * s[1] + (s[2],)]
            return x
        for k, sc in enumerate(spec):
            a = np.array(np.load(sc['a']))
            b = np.array(np.load(sc['b']))
            floating = a.dtype.kind == 'f'
            acc = np.float64 if floating else (np.uint64 if a.dtype.kind == 'u' else np.int64)
            got = []
            for op in sc['ops']:
                t = view(a, op['view'])
                name = op['op']
                if name in ('sum', 'min', 'max'):
                    r = t.sum(dtype=acc) if name == 'sum' else (t.min() if name == 'min' else t.max())
                    got.append(repr(float(r)) if floating or name == 'sum' else str(int(r)))
                    continue
                if 'scalar' in op:
                    o = float(op['scalar']) if floating else int(op['scalar'])
                else:
                    o = view(b if op['other'] == 'b' else a, op['view'])
                    if op['other'] == 'a':
                        o = o.copy()
                if name == 'add': t += o
                elif name == 'sub': t -= o
                elif name == 'mul': t *= o
                elif floating: t /= o
                else: t //= o
            a.tofile(out_dir + '/a%d.bin' % k)
            results.append(got)
        print(json.dumps(results))
    """.trimIndent()

    class Op(val view: List<List<Any?>>, val op: String, val scalar: String?, val other: String?)

    class Sc(val a: SharedNDArray<*>, val b: SharedNDArray<*>, val ops: List<Op>)

    fun jsonValue(v: Any?): String = when (v) {
        null -> "null"
        is String -> "\"$v\""
        is List<*> -> v.joinToString(",", "[", "]") { jsonValue(it) }
        else -> v.toString()
    }

    test("random operation sequences give numpy's results") {
        val rnd = Random(20261122)
        val dir = scratchDir("xcheck")
        val scenarios = mutableListOf<Sc>()
        try {
            repeat(120) {
                val t = DType.all()[rnd.nextInt(10)]
                val shape = LongArray(1 + rnd.nextInt(3)) { 1L + rnd.nextInt(7) }
                val a = SharedArrays.createAny(t, shape, CreateOptions.defaults().backend(Backend.SHM))
                val b = SharedArrays.createAny(t, shape, CreateOptions.defaults().backend(Backend.SHM))
                scenarios += Sc(a, b, emptyList())
                for (i in 0 until a.size()) {
                    if (t.isFloatingPoint) {
                        a.setDouble(i, rnd.nextDouble(-100.0, 100.0))
                        b.setDouble(i, rnd.nextDouble(0.5, 9.0) * if (rnd.nextBoolean()) 1 else -1)
                    } else {
                        a.setLong(i, rnd.nextLong())
                        val d = 1L + rnd.nextInt(20)
                        b.setLong(i, if (!t.isUnsigned && rnd.nextBoolean()) -d else d)
                    }
                }
                val ops = mutableListOf<Op>()
                repeat(8) {
                    val (steps, _) = RandomViews.of(rnd, shape)
                    val name = listOf("add", "sub", "mul", "div", "sum", "min", "max")[rnd.nextInt(7)]
                    when {
                        name in listOf("sum", "min", "max") -> ops += Op(steps, name, null, null)
                        rnd.nextInt(3) == 0 -> ops += Op(steps, name, null, if (name == "div") "b" else listOf("a", "b")[rnd.nextInt(2)])
                        else -> {
                            val s = if (t.isFloatingPoint) rnd.nextDouble(-4.0, 4.0).let { if (it == 0.0) 1.0 else it }.toString()
                            else {
                                val (lo, hi) = dev.sharedarrays.testing.RefMath.range(t)
                                val v = if (rnd.nextBoolean()) rnd.nextLong(maxOf(lo, -7), minOf(hi, 7) + 1) else rnd.nextLong(lo, hi)
                                (if (v == 0L) 3L else v).toString()
                            }
                            ops += Op(steps, name, s, null)
                        }
                    }
                }
                scenarios[scenarios.size - 1] = Sc(a, b, ops)
            }
            val spec = scenarios.joinToString(",", "[", "]") { sc ->
                "{\"a\":\"${sc.a.path().get()}\",\"b\":\"${sc.b.path().get()}\",\"ops\":" + sc.ops.joinToString(",", "[", "]") { op ->
                    "{\"view\":${jsonValue(op.view)},\"op\":\"${op.op}\"" +
                        (op.scalar?.let { ",\"scalar\":$it" } ?: "") + (op.other?.let { ",\"other\":\"$it\"" } ?: "") + "}"
                } + "}"
            }
            val specFile = File(dir, "spec.json").apply { writeText(spec) }
            val p = ProcessBuilder("python3", "-c", script, specFile.path, dir.path).redirectErrorStream(true).start()
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(300, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n$text")
            val numpyResults = Regex("""\[([^\[\]]*)]""").findAll(text.lines().last { it.startsWith("[") }.removePrefix("[").removeSuffix("]"))
                .map { m -> Regex(""""([^"]*)"""").findAll(m.groupValues[1]).map { it.groupValues[1] }.toList() }.toList()
            numpyResults.size shouldBe scenarios.size

            for ((k, sc) in scenarios.withIndex()) {
                val t = sc.a.dtype()
                withClue("scenario $k: $t ${sc.a.shape().toList()}") {
                    val got = mutableListOf<String>()
                    for (op in sc.ops) {
                        val v = RandomViews.replay(sc.a, op.view)
                        val w = RandomViews.replay(if (op.other == "b") sc.b else sc.a, op.view)
                        @Suppress("UNCHECKED_CAST")
                        val tv = v as SharedNDArray<F64>
                        when (op.op) {
                            "sum" -> got += v.sum().toString()
                            "min" -> got += if (t.isFloatingPoint) v.minAsDouble().toString() else unsignedAware(t, v.minAsLong())
                            "max" -> got += if (t.isFloatingPoint) v.maxAsDouble().toString() else unsignedAware(t, v.maxAsLong())
                            else -> {
                                val code = listOf("add", "sub", "mul", "div").indexOf(op.op)
                                if (op.scalar != null) {
                                    if (t.isFloatingPoint) {
                                        val s = op.scalar.toDouble()
                                        when (code) { 0 -> tv.add(s); 1 -> tv.sub(s); 2 -> tv.mul(s); else -> tv.divide(s) }
                                    } else {
                                        val s = op.scalar.toLong()
                                        when (code) { 0 -> tv.add(s); 1 -> tv.sub(s); 2 -> tv.mul(s); else -> tv.divide(s) }
                                    }
                                } else {
                                    @Suppress("UNCHECKED_CAST")
                                    val o = w as SharedNDArray<F64>
                                    when (code) { 0 -> tv.add(o); 1 -> tv.sub(o); 2 -> tv.mul(o); else -> tv.divide(o) }
                                }
                            }
                        }
                    }
                    // elements: bit-identical
                    val expectedBytes = File(dir, "a$k.bin").readBytes()
                    val ours = sc.a.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)
                    ours.contentEquals(expectedBytes) shouldBe true
                    // reductions
                    got.size shouldBe numpyResults[k].size
                    for ((g, e) in got.zip(numpyResults[k])) {
                        if (e.contains('.') || e.contains("e") || e == "nan" || e.contains("inf")) {
                            val gd = g.toDouble()
                            val ed = e.replace("inf", "Infinity").toDouble()
                            if (!(gd.isNaN() && ed.isNaN())) {
                                withClue("reduction $g vs numpy $e") { (abs(gd - ed) <= 1e-12 * maxOf(1.0, abs(ed))) shouldBe true }
                            }
                        } else {
                            g shouldBe e
                        }
                    }
                }
            }
        } finally {
            scenarios.forEach { it.a.close(); it.b.close() }
            dir.deleteRecursively()
        }
    }
})

private fun unsignedAware(t: DType<*>, v: Long): String = if (t == U64.TYPE) BigInteger(java.lang.Long.toUnsignedString(v)).toString() else v.toString()
