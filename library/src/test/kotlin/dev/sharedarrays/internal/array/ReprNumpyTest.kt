package dev.sharedarrays.internal.array

import dev.sharedarrays.internal.kernel.ElementType
import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.io.File
import java.lang.foreign.MemorySegment
import java.util.Base64
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * The values part of toString against numpy's `np.array2string` (what `print(a)` shows) for
 * the same elements: tables of hand-picked arrays (layout, wrapping, summarising, nan/inf,
 * float32 digits) and random ones, all compared in one python3 process.
 */
class ReprNumpyTest : FunSpec({
    /** One array: its type, shape and elements, floats as their bit patterns so numpy gets the very same values. */
    class Case(val name: String, val type: ElementType, val shape: LongArray, val bits: LongArray)

    fun f64(name: String, shape: LongArray, vararg v: Double) = Case(name, ElementType.F64, shape, LongArray(v.size) { v[it].toRawBits() })
    fun f32(name: String, shape: LongArray, vararg v: Float) =
        Case(name, ElementType.F32, shape, LongArray(v.size) { v[it].toRawBits().toLong() and 0xffffffffL })
    fun ints(name: String, type: ElementType, shape: LongArray, vararg v: Long) = Case(name, type, shape, v)
    fun shape(vararg d: Long) = d

    val script = """
        import base64, sys
        import numpy as np
        for line in open(sys.argv[1]):
            t, shape, values = line.split(';')
            shape = tuple(int(d) for d in shape.split(','))
            dtype = np.dtype({'F64': '<f8', 'F32': '<f4', 'I64': '<i8', 'I32': '<i4', 'I16': '<i2', 'I8': '|i1',
                              'U64': '<u8', 'U32': '<u4', 'U16': '<u2', 'U8': '|u1', 'BOOL': '|b1'}[t])
            a = np.array([int(v) for v in values.split(',')], dtype='<u%d' % dtype.itemsize).view(dtype)
            print(base64.b64encode(np.array2string(a.reshape(shape)).encode()).decode())
    """.trimIndent()

    fun segment(c: Case): MemorySegment = when (c.type) {
        ElementType.F64, ElementType.I64, ElementType.U64 -> MemorySegment.ofArray(c.bits.copyOf())
        ElementType.F32, ElementType.I32, ElementType.U32 -> MemorySegment.ofArray(IntArray(c.bits.size) { c.bits[it].toInt() })
        ElementType.I16, ElementType.U16 -> MemorySegment.ofArray(ShortArray(c.bits.size) { c.bits[it].toInt().toShort() })
        else -> MemorySegment.ofArray(ByteArray(c.bits.size) { c.bits[it].toInt().toByte() })
    }

    fun numpyText(cases: List<Case>): List<String> {
        val dir = scratchDir("repr")
        try {
            val input = File(dir, "cases.txt")
            input.writeText(cases.joinToString("") { c ->
                // each element's bits, as an unsigned number of the element's width
                val mask = if (c.type.itemSize() == 8) -1L else (1L shl (8 * c.type.itemSize())) - 1
                val values = c.bits.joinToString(",") { java.lang.Long.toUnsignedString(it and mask) }
                "${c.type};${c.shape.joinToString(",")};$values\n"
            })
            val p = ProcessBuilder("python3", "-c", script, input.path).redirectErrorStream(true).start()
            val out = p.inputStream.bufferedReader().readText()
            p.waitFor(120, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n${out.takeLast(2000)}")
            return out.trim().lines().map { String(Base64.getDecoder().decode(it)) }
        } finally {
            dir.deleteRecursively()
        }
    }

    fun checkAgainstNumpy(cases: List<Case>) {
        val expected = numpyText(cases)
        expected.size shouldBe cases.size
        for ((c, e) in cases.zip(expected)) {
            withClue("${c.name}: ${c.type} shape ${c.shape.toList()}") {
                Repr.format(c.type, c.shape, segment(c)) { it } shouldBe e
            }
        }
    }

    test("hand-picked arrays print as numpy prints them") {
        val rnd = Random(7)
        val normal = DoubleArray(2000) { rnd.nextDouble(-3.0, 3.0) * rnd.nextDouble() }
        checkAgainstNumpy(
            listOf(
                ints("2-d ints", ElementType.I32, shape(3, 4), *LongArray(12) { it.toLong() }),
                ints("padded to the widest, minus sign included", ElementType.I64, shape(5), 1, -2, 10, -300, 7),
                ints("u64 past 2^63", ElementType.U64, shape(3), -1, 0, Long.MIN_VALUE),
                ints("i8 extremes", ElementType.I8, shape(2, 2), -128, 127, 0, -1),
                ints("u8", ElementType.U8, shape(3), 255, 0, 44),
                ints("wraps at 75 columns", ElementType.I64, shape(30), *LongArray(30) { it.toLong() }),
                ints("summarised 1-d", ElementType.I32, shape(2000), *LongArray(2000) { it.toLong() }),
                ints("summarised 3-d", ElementType.I16, shape(11, 11, 11), *LongArray(1331) { it - 600L }),
                ints("1001 elements", ElementType.U16, shape(1001), *LongArray(1001) { it * 3L }),
                ints("exactly 1000 elements, not summarised", ElementType.I32, shape(10, 100), *LongArray(1000) { it.toLong() }),
                f64("short fractions, padded right", shape(3), 0.1, 0.25, 1.0),
                f64("whole floats", shape(2, 3), 0.0, 1.0, 2.0, -3.0, 4.0, 5.0),
                f64("scientific, no mantissa digits", shape(2), 1e-5, 1.0),
                f64("scientific with a common precision", shape(2), 1.5e-5, 1.0),
                f64("ratio over 1000", shape(3), 0.5, 600.0, 1e3),
                f64("1e8 goes scientific", shape(2), 1e8, 1.0),
                f64("3-digit exponents", shape(2), 1e-5, 1e100),
                f64("cut to 8 places", shape(3), Math.PI, Math.E, 1.0 / 3),
                f64("cut to 9 digits in scientific", shape(2), Math.PI * 1e-7, 2.0 / 3e-7),
                f64("a tie at the 9th place rounds to even", shape(2), 0.001953125, 1.0),
                f64("negative zero", shape(3), 0.0, -0.0, 1.5),
                f64("nan and inf", shape(4), Double.NaN, Double.POSITIVE_INFINITY, 1.25, -2.0),
                f64("-inf widens the column", shape(2), Double.NEGATIVE_INFINITY, 1.0),
                f64("only nan and inf", shape(3), Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY),
                f64("nan in scientific", shape(3), Double.NaN, 1e-7, 1.0),
                f64("smallest subnormal: one digit", shape(2), Double.MIN_VALUE, 1.0),
                f64("largest double", shape(2), Double.MAX_VALUE, -java.lang.Double.MIN_NORMAL),
                f64("2-d floats wrap", shape(4, 12), *DoubleArray(48) { normal[it] }),
                f64("summarised 2-d floats", shape(50, 40), *normal),
                f32("float32 digits, not widened ones", shape(3), -1.7252982f, 0.1f, 2.5f),
                f32("float32 goes scientific from 1e6", shape(2), 1e6f, 1.0f),
                f32("float32 just below 1e6", shape(2), 999999.94f, 1.0f),
                f32("float32 0.0001 compares in float32", shape(2), 1e-4f, 0.5f),
                f32("smallest float32", shape(2), Float.MIN_VALUE, 1.0f),
                f32("float32 nan", shape(3), Float.NaN, -1.0f, 0.3f),
                f32("summarised float32", shape(2000), *FloatArray(2000) { normal[it].toFloat() }),
            ),
        )
    }

    test("random arrays print as numpy prints them") {
        val rnd = Random(20260611)
        val types = ElementType.entries
        val cases = List(300) { k ->
            val t = types[rnd.nextInt(types.size)]
            val dims = LongArray(1 + rnd.nextInt(3)) { 1L + rnd.nextInt(if (rnd.nextInt(6) == 0) 40 else 6) }
            val n = dims.fold(1L, Long::times).toInt()
            val scale = listOf(1e-9, 1e-3, 0.5, 1.0, 77.0, 1e5, 1e7, 1e12)[rnd.nextInt(8)]
            val bits = LongArray(n) {
                when {
                    t == ElementType.F64 && rnd.nextInt(8) == 0 -> rnd.nextLong()  // any bit pattern: nan, subnormal, huge
                    t == ElementType.F32 && rnd.nextInt(8) == 0 -> rnd.nextLong() and 0xffffffffL
                    t == ElementType.F64 -> (rnd.nextDouble(-1.0, 1.0) * scale).let { v -> if (rnd.nextInt(4) == 0) Math.rint(v) else v }.toRawBits()
                    t == ElementType.F32 -> ((rnd.nextDouble(-1.0, 1.0) * scale).toFloat().toRawBits().toLong() and 0xffffffffL)
                    t == ElementType.BOOL -> rnd.nextInt(2).toLong()
                    else -> rnd.nextLong().shr(rnd.nextInt(64))
                }
            }
            Case("random $k", t, dims, bits)
        }
        checkAgainstNumpy(cases)
    }

    test("float digits are numpy's shortest repr for random bit patterns") {
        // one element per array: the positional/scientific choice is numpy's too
        val rnd = Random(99)
        val cases = List(400) { k ->
            if (k % 2 == 0) f64("double $k", shape(1), Double.fromBits(rnd.nextLong()))
            else f32("float $k", shape(1), Float.fromBits(rnd.nextInt()))
        }
        checkAgainstNumpy(cases)
    }
})
