package dev.sharedarrays

import dev.sharedarrays.testing.scratchDir
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.math.BigInteger
import java.util.concurrent.TimeUnit

/**
 * python3 + numpy open live segments with numpy.load(path, mmap_mode='r+'): they see the JVM's
 * values for every dtype and the JVM sees numpy's writes.
 */
class NumpyInteropTest : FunSpec({
    val script = """
        import sys, json
        import numpy as np
        out = []
        for path in sys.argv[1:]:
            a = np.load(path, mmap_mode='r+')
            out.append({'descr': a.dtype.str, 'shape': list(a.shape),
                        'values': [repr(v) for v in a.ravel().tolist()]})
            flat = a.reshape(-1)
            for i in range(flat.size):
                flat[i] = (i * 3 + 1) % 100
            a.flush()
        print(json.dumps(out))
    """.trimIndent()

    /** The JVM writes element i as this; the last element gets the type's extreme. */
    fun jvmValue(i: Long): Long = (i * 11 + 5) % 100

    fun expectedText(t: DType<*>, a: SharedNDArray<*>, i: Long): String = when {
        t == U64.TYPE -> java.lang.Long.toUnsignedString(a.getLong(i))
        t.isFloatingPoint -> a.getDouble(i).toString()
        else -> a.getLong(i).toString()
    }

    fun normalize(t: DType<*>, text: String): String = when {
        t.isFloatingPoint -> text.toDouble().toString()
        t.isBool -> when (text) { "True" -> "1"; "False" -> "0"; else -> text }
        else -> BigInteger(text).toString()
    }

    fun extreme(t: DType<*>, a: SharedNDArray<*>, i: Long) = when (t) {
        F64.TYPE -> a.setDouble(i, 0.1)
        F32.TYPE -> a.setDouble(i, -2.5e-3)
        I64.TYPE -> a.setLong(i, Long.MIN_VALUE)
        I32.TYPE -> a.setLong(i, Int.MIN_VALUE.toLong())
        I16.TYPE -> a.setLong(i, Short.MIN_VALUE.toLong())
        I8.TYPE -> a.setLong(i, -128)
        else -> a.setLong(i, -1) // the unsigned maximum, 2^64-1 for U64
    }

    fun runPython(paths: List<String>): String {
        val p = ProcessBuilder(listOf("python3", "-c", script) + paths).redirectErrorStream(true).start()
        try {
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(120, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n$text")
            return text.lines().last { it.startsWith("[") }
        } finally {
            p.destroyForcibly()
        }
    }

    fun check(backendFor: (DType<*>) -> CreateOptions) {
        val arrays = DType.all().map { t -> SharedArrays.createAny(t, longArrayOf(3, 4), backendFor(t)) }
        try {
            for (a in arrays) {
                for (i in 0 until a.size()) a.setLong(i, jvmValue(i))
                extreme(a.dtype(), a, a.size() - 1)
            }
            val written = arrays.map { a -> (0 until a.size()).map { normalize(a.dtype(), expectedText(a.dtype(), a, it)) } }
            val json = runPython(arrays.map { it.path().get().toString() })
            val parsed = parseSeen(json)
            parsed.size shouldBe arrays.size
            for ((k, a) in arrays.withIndex()) {
                val seen = parsed[k]
                val t = a.dtype()
                seen.descr shouldBe t.descr()
                seen.shape shouldBe listOf(3L, 4L)
                seen.values.map { normalize(t, it) } shouldBe written[k]
                // numpy's writes are visible here
                (0 until a.size()).map { a.getLong(it) } shouldBe (0 until a.size()).map {
                    val v = (it * 3 + 1) % 100
                    if (t.isBool) (if (v != 0L) 1L else 0L) else v
                }
            }
        } finally {
            arrays.forEach { it.close() }
        }
    }

    test("numpy sees every dtype of a live shm segment and the JVM sees numpy's writes") {
        check { CreateOptions.defaults().backend(Backend.SHM) }
    }

    test("numpy opens memfd segments by /proc/<pid>/fd/<n> and file segments by path") {
        val dir = scratchDir("npy")
        try {
            var k = 0
            check { t ->
                if (k++ % 2 == 0) CreateOptions.defaults().backend(Backend.MEMFD)
                else CreateOptions.defaults().file(dir.toPath().resolve(t.name() + ".npy")).persistent(false)
            }
        } finally {
            dir.deleteRecursively()
        }
    }
})

private data class Seen(val descr: String, val shape: List<Long>, val values: List<String>)

/** Parses the script's small, fixed JSON shape without a JSON library. */
private fun parseSeen(json: String): List<Seen> {
    val objects = Regex("""\{"descr": "([^"]+)", "shape": \[([^\]]*)], "values": \[([^\]]*)]}""").findAll(json)
    return objects.map { m ->
        Seen(
            m.groupValues[1],
            m.groupValues[2].split(",").map { it.trim().toLong() },
            Regex(""""([^"]*)"""").findAll(m.groupValues[3]).map { it.groupValues[1] }.toList(),
        )
    }.toList()
}
