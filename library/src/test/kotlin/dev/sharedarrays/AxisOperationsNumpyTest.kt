package dev.sharedarrays

import dev.sharedarrays.internal.array.AxisReduction
import dev.sharedarrays.testing.RandomViews
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.math.abs
import kotlin.random.Random

/**
 * The reductions, cumulative sums and sorts of random views of shared arrays, and arange and
 * linspace, against numpy reading the very same memory (np.load of the segment's file):
 * integer results, indices, sorts, minima, maxima and cumulative sums exactly, dtypes as numpy's,
 * sums, means, products, variances and standard deviations within 1e-12 of their scale.
 */
class AxisOperationsNumpyTest : FunSpec({
    val script = """
        import json, sys
        import numpy as np
        spec = json.load(open(sys.argv[1]))
        def view(x, steps):
            for s in steps:
                if s[0] == 's':
                    x = x[(slice(None),) * s[1] + (slice(s[2], s[3], s[4]),)]
                else:
                    x = x.transpose(s[1])
            return x
        def values(r):
            r = np.asarray(r)
            return [repr(float(v)) if r.dtype.kind == 'f' else str(int(v)) for v in r.ravel()]
        for sc in spec['arrays']:
            t = view(np.load(sc['path'], mmap_mode='r'), sc['view'])
            acc = np.float64 if t.dtype.kind == 'f' else (np.uint64 if t.dtype.kind == 'u' else np.int64)
            for op in sc['ops']:
                name, ax = op['op'], op['axis']
                n = t.size if ax is None else t.shape[ax]
                absum = np.abs(t.astype(np.float64)).sum(axis=ax)
                scale = None
                with np.errstate(all='ignore'):
                    if name == 'sum':
                        r, scale = t.sum(axis=ax, dtype=acc).astype(np.float64), absum
                    elif name == 'mean':
                        r, scale = t.sum(axis=ax, dtype=acc).astype(np.float64) / n, absum / n
                    elif name == 'prod':
                        r = np.prod(t, axis=ax, dtype=acc).astype(np.float64)
                        scale = 10 * np.abs(r)
                    elif name in ('var', 'std'):
                        r = np.var(t, axis=ax, dtype=np.float64) if name == 'var' else np.std(t, axis=ax, dtype=np.float64)
                        m = absum / n
                        scale = np.abs(r) + 1e-3 * (m * m if name == 'var' else m)
                    elif name == 'min':
                        r = t.min(axis=ax)
                    elif name == 'max':
                        r = t.max(axis=ax)
                    elif name == 'argmin':
                        r = np.argmin(t, axis=ax)
                    elif name == 'argmax':
                        r = np.argmax(t, axis=ax)
                    elif name == 'cumsum':
                        r = np.cumsum(t, axis=ax)
                    else:
                        r = np.sort(t, axis=-1 if ax is None else ax)
                r = np.asarray(r)
                print(r.dtype.str + ';' + ' '.join(values(r)) + ';' + ('' if scale is None else ' '.join(values(scale))))
        for q in spec['sequences']:
            r = np.linspace(q[1], q[2], int(q[3])) if q[0] == 'linspace' else np.arange(q[1], q[2], q[3])
            print('seq;' + ' '.join(values(r)) + ';')
    """.trimIndent()

    fun json(v: Any?): String = when (v) {
        null -> "null"
        is String -> "\"$v\""
        is List<*> -> v.joinToString(",", "[", "]") { json(it) }
        is Map<*, *> -> v.entries.joinToString(",", "{", "}") { "\"${it.key}\":${json(it.value)}" }
        else -> v.toString()
    }

    test("reductions, cumsum and sort of random views, and arange and linspace, give numpy's results") {
        val rnd = Random(20261122)
        val dir = scratchDir("axis-numpy")
        val arrays = mutableListOf<SharedNDArray<*>>()
        val walkBefore = AxisReduction.forceLaneWalk(null)
        try {
            val specs = mutableListOf<Map<String, Any?>>()
            val cases = mutableListOf<Triple<SharedNDArray<*>, List<Op>, String>>()
            repeat(80) { k ->
                val t = DType.all()[rnd.nextInt(DType.all().size)]
                val shape = if (k % 10 == 0) longArrayOf(3L + rnd.nextInt(3), 2100L + rnd.nextInt(300)) // past a block
                else LongArray(1 + rnd.nextInt(3)) { 1L + rnd.nextInt(7) }
                val a = SharedArrays.createAny(t, shape, CreateOptions.defaults().backend(Backend.SHM))
                arrays += a
                val gentle = rnd.nextBoolean() // products stay finite in any order
                val nans = t.isFloatingPoint && rnd.nextInt(4) == 0
                for (i in 0 until a.size()) {
                    if (t.isFloatingPoint) {
                        val v = when {
                            nans && rnd.nextInt(8) == 0 -> Double.NaN
                            gentle -> rnd.nextDouble(0.8, 1.25) * (if (rnd.nextInt(3) == 0) -1 else 1)
                            rnd.nextInt(4) == 0 -> rnd.nextInt(-3, 4).toDouble()
                            else -> rnd.nextDouble(-100.0, 100.0)
                        }
                        a.setDouble(i, v)
                    } else {
                        a.setLong(i, if (t.isBool) rnd.nextLong(2) else if (rnd.nextBoolean()) rnd.nextLong(-3, 4) else rnd.nextLong())
                    }
                }
                val (steps, rank) = RandomViews.of(rnd, shape)
                val v = RandomViews.replay(a, steps)
                val names = listOf("sum", "mean", "min", "max", "var", "std", "argmin", "argmax", "cumsum", "sort") +
                    if (gentle || !t.isFloatingPoint) listOf("prod") else emptyList()
                val ops = names.map { Op(it, if (rnd.nextInt(3) == 0) null else rnd.nextInt(rank)) }
                specs += mapOf("path" to a.path().get().toString(), "view" to steps,
                    "ops" to ops.map { mapOf("op" to it.name, "axis" to it.axis) })
                cases += Triple(v, ops, "$t ${shape.toList()} view $steps")
            }
            val sequences = List(30) {
                if (rnd.nextBoolean()) listOf("linspace", rnd.nextDouble(-50.0, 50.0), rnd.nextDouble(-50.0, 50.0), 1 + rnd.nextInt(40))
                else {
                    val start = rnd.nextDouble(-5.0, 5.0)
                    val step = rnd.nextDouble(0.01, 1.0) * (if (rnd.nextBoolean()) 1 else -1)
                    listOf("arange", start, start + step * rnd.nextDouble(1.0, 60.0), step)
                }
            }
            val specFile = File(dir, "spec.json").apply { writeText(json(mapOf("arrays" to specs, "sequences" to sequences))) }
            val scriptFile = File(dir, "check.py").apply { writeText(script) }
            val p = ProcessBuilder("python3", scriptFile.path, specFile.path).redirectError(ProcessBuilder.Redirect.INHERIT).start()
            val output = p.inputStream.bufferedReader().readText()
            p.waitFor(120, TimeUnit.SECONDS) shouldBe true
            p.exitValue() shouldBe 0
            val lines = output.lines().filter { it.contains(';') }.map { it.split(';') }.iterator()
            for ((k, case) in cases.withIndex()) {
                val (v, ops, what) = case
                val walk = listOf(null, true, false)[k % 3]
                AxisReduction.forceLaneWalk(walk)
                for (op in ops) {
                    val (dtype, values, scale) = lines.next()
                    withClue("$what walk=$walk: ${op.name}(axis=${op.axis})") {
                        compare(v, op, dtype, values.split(' '), scale.split(' ').filter { it.isNotEmpty() }.map(::py))
                    }
                }
            }
            for (q in sequences) {
                val got = if (q[0] == "linspace") NDArrays.linspace(q[1] as Double, q[2] as Double, (q[3] as Int).toLong())
                else NDArrays.arange(q[1] as Double, q[2] as Double, q[3] as Double)
                val (tag, values) = lines.next()
                tag shouldBe "seq"
                withClue("$q") { got.toDoubleArray().toList() shouldBe values.split(' ').map(::py) }
            }
        } finally {
            AxisReduction.forceLaneWalk(walkBefore)
            arrays.forEach { it.close() }
            dir.deleteRecursively()
        }
    }
})

private fun py(s: String): Double = when (s) {
    "nan" -> Double.NaN
    "inf" -> Double.POSITIVE_INFINITY
    "-inf" -> Double.NEGATIVE_INFINITY
    else -> s.toDouble()
}

private class Op(val name: String, val axis: Int?)

/**
 * One operation of the library on view v against numpy's result: its dtype, its values (exactly
 * for integer results, as numbers for float results) and, for float reductions, each value's scale.
 */
private fun compare(v: SharedNDArray<*>, op: Op, dtype: String, expected: List<String>, scale: List<Double>) {
    val a = op.axis
    val result: SharedNDArray<*>? = when (op.name) {
        "sum" -> a?.let { v.sum(it) }
        "mean" -> a?.let { v.mean(it) }
        "prod" -> a?.let { v.prod(it) }
        "var" -> a?.let { v.variance(it) }
        "std" -> a?.let { v.std(it) }
        "min" -> a?.let { v.min(it) }
        "max" -> a?.let { v.max(it) }
        "argmin" -> a?.let { v.argmin(it) }
        "argmax" -> a?.let { v.argmax(it) }
        "cumsum" -> if (a == null) v.cumsum() else v.cumsum(a)
        else -> if (a == null) v.sorted() else v.sorted(a)
    }
    val floating = dtype[1] == 'f'
    val got: List<String> = if (result != null) {
        if (op.name !in listOf("sum", "mean", "prod", "var", "std")) result.dtype().descr().drop(1) shouldBe dtype.drop(1)
        (0 until result.size()).map { if (floating) result.getDouble(it).toString() else result.getUnsigned(it).toString() }
    } else {
        val t = v.dtype()
        fun exact(x: Long) = if (t == U64.TYPE) java.lang.Long.toUnsignedString(x) else x.toString()
        listOf(when (op.name) {
            "sum" -> v.sum().toString()
            "mean" -> v.mean().toString()
            "prod" -> v.prod().toString()
            "var" -> v.variance().toString()
            "std" -> v.std().toString()
            "min" -> if (floating) v.minAsDouble().toString() else exact(v.minAsLong())
            "max" -> if (floating) v.maxAsDouble().toString() else exact(v.maxAsLong())
            "argmin" -> v.argmin().toString()
            else -> v.argmax().toString()
        })
    }
    got.size shouldBe expected.size
    for (i in got.indices) {
        withClue("element $i: ${got[i]} vs numpy's ${expected[i]}") {
            if (!floating) {
                got[i] shouldBe expected[i]
            } else {
                val g = got[i].toDouble()
                val e = py(expected[i])
                if (scale.isEmpty() || e.isNaN() || e.isInfinite()) {
                    (g == e || g.isNaN() && e.isNaN()) shouldBe true
                } else {
                    (abs(g - e) <= 1e-12 * scale[i]) shouldBe true
                }
            }
        }
    }
}
