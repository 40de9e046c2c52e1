package dev.sharedarrays

import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.io.File
import java.lang.foreign.ValueLayout
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * Out-of-place arithmetic with broadcasting, and astype, against numpy on the same data: random
 * element types, shapes that broadcast, strided and transposed views; results bit-identical.
 * Integer division is numpy's floor division (//), as the library's integer / is.
 */
class OutOfPlaceNumpyTest : FunSpec({
    val script = """
        import json, sys
        import numpy as np
        spec = json.load(open(sys.argv[1]))
        out = sys.argv[2]
        for k, sc in enumerate(spec):
            a = np.load(sc['a'], mmap_mode='r')
            b = np.load(sc['b'], mmap_mode='r')
            if sc['t']:
                a = a.transpose()
            a = a[tuple(slice(None, None, s) for s in sc['steps'])]
            op = sc['op']
            if op == 'add': r = a + b
            elif op == 'sub': r = a - b
            elif op == 'mul': r = a * b
            elif a.dtype.kind == 'f': r = a / b
            else: r = a // b
            with np.errstate(all='ignore'):
                c = a.astype(sc['to'])
            open(out + '/r%d.bin' % k, 'wb').write(np.ascontiguousarray(r).tobytes())
            open(out + '/c%d.bin' % k, 'wb').write(np.ascontiguousarray(c).tobytes())
            open(out + '/s%d.txt' % k, 'w').write(str(list(r.shape)))
        print('done')
    """.trimIndent()

    test("a (op) b broadcast and a.astype(t) over random dtypes, shapes and views are bit-identical with numpy") {
        val rnd = Random(1122)
        val dir = scratchDir("outofplace")
        val shm = CreateOptions.defaults().backend(Backend.SHM)
        val made = mutableListOf<SharedNDArray<*>>()
        val numeric = DType.all().filter { it.name() != "BOOL" }
        try {
            data class Sc(val a: SharedNDArray<*>, val b: SharedNDArray<*>, val t: Boolean, val steps: List<Long>, val op: String, val to: DType<*>)
            val floats = listOf<DType<*>>(F64.TYPE, F32.TYPE)
            val scs = List(150) { k ->
                // every third case is contiguous and spans several of the fused loops' blocks and
                // SIMD vectors, often a float to float cast (the SIMD conversion)
                val big = k % 3 == 0
                val t = if (big && rnd.nextBoolean()) floats[rnd.nextInt(2)] else numeric[rnd.nextInt(numeric.size)]
                val shape = when {
                    !big -> LongArray(1 + rnd.nextInt(4)) { 1L + rnd.nextInt(6) }
                    rnd.nextBoolean() -> longArrayOf(5000L + rnd.nextInt(15000))
                    else -> longArrayOf(20L + rnd.nextInt(60), 150L + rnd.nextInt(100))
                }
                val a = SharedArrays.createAny(t, shape, shm).also { made += it }
                val transpose = !big && rnd.nextBoolean()
                val steps = List(shape.size) { if (big) 1L else listOf(1L, 2L, -1L)[rnd.nextInt(3)] }
                val viewShape = (if (transpose) shape.reversedArray() else shape).mapIndexed { i, d ->
                    if (steps[i] == 2L) (d + 1) / 2 else d
                }
                // b: trailing axes of the view's shape, some of them 1
                val bShape = viewShape.drop(rnd.nextInt(viewShape.size)).map { if (rnd.nextInt(3) == 0) 1L else it }.toLongArray()
                val b = SharedArrays.createAny(t, bShape, shm).also { made += it }
                val op = listOf("add", "sub", "mul", "div")[rnd.nextInt(4)]
                val to = if (big && t.isFloatingPoint && rnd.nextBoolean()) floats.first { it != t } else numeric[rnd.nextInt(numeric.size)]
                for (i in 0 until a.size()) {
                    if (t.isFloatingPoint) a.setDouble(i, rnd.nextDouble(-100.0, 100.0)) else a.setLong(i, rnd.nextLong())
                }
                for (i in 0 until b.size()) {
                    if (t.isFloatingPoint) {
                        b.setDouble(i, rnd.nextDouble(0.5, 9.0) * if (rnd.nextBoolean()) 1 else -1)
                    } else {
                        val d = 1L + rnd.nextInt(20)
                        b.setLong(i, if (!t.isUnsigned && rnd.nextBoolean()) -d else d)
                    }
                }
                if (t.isFloatingPoint && !to.isFloatingPoint) {
                    // values every integer type holds: numpy's result for others is undefined (we refuse)
                    for (i in 0 until a.size()) a.setDouble(i, rnd.nextDouble(0.0, 127.0))
                }
                Sc(a, b, transpose, steps, op, to)
            }
            val spec = scs.joinToString(",", "[", "]") { s ->
                "{\"a\":\"${s.a.path().get()}\",\"b\":\"${s.b.path().get()}\",\"t\":${s.t},\"steps\":${s.steps}," +
                    "\"op\":\"${s.op}\",\"to\":\"${s.to.descr()}\"}"
            }
            val specFile = File(dir, "spec.json").apply { writeText(spec) }
            val p = ProcessBuilder("python3", "-c", script, specFile.path, dir.path).redirectErrorStream(true).start()
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(300, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n$text")
            for ((k, s) in scs.withIndex()) {
                withClue("scenario $k: ${s.a.dtype()} ${s.a.shape().toList()} op ${s.op} b ${s.b.shape().toList()} -> ${s.to}") {
                    @Suppress("UNCHECKED_CAST")
                    var v = s.a as SharedNDArray<F64>
                    if (s.t) v = v.transpose()
                    for ((axis, step) in s.steps.withIndex()) v = v.slice(axis, Long.MIN_VALUE, Long.MAX_VALUE, step)
                    @Suppress("UNCHECKED_CAST")
                    val b = s.b as SharedNDArray<F64>
                    val r = when (s.op) { "add" -> v.plus(b); "sub" -> v.minus(b); "mul" -> v.times(b); else -> v.dividedBy(b) }
                    r.isLocal shouldBe true
                    r.shape().toList().toString() shouldBe File(dir, "s$k.txt").readText()
                    r.data().toArray(ValueLayout.JAVA_BYTE).contentEquals(File(dir, "r$k.bin").readBytes()) shouldBe true
                    // the target is known only at run time: call astype(DType) as Java would with a raw type
                    val c = Conversions::class.java.getMethod("astype", DType::class.java).invoke(v, s.to) as SharedNDArray<*>
                    c.data().toArray(ValueLayout.JAVA_BYTE).contentEquals(File(dir, "c$k.bin").readBytes()) shouldBe true
                }
            }
        } finally {
            made.forEach { it.close() }
            dir.deleteRecursively()
        }
    }
})
