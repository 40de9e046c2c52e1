package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.assertions.withClue
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

/** ArrayMath's examples, errors (messages asserted exactly) and locks. */
class ArrayMathTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    fun <T : DType<T>> array(t: T, vararg shape: Long): SharedNDArray<T> = SharedArrays.create(t, shape, anon)

    test("integer abs, sign and clip as numpy: abs wraps, unsigned types compare unsigned") {
        class Row(val t: DType<*>, val values: LongArray, val fn: String, val want: LongArray)
        val table = listOf(
            Row(I8.TYPE, longArrayOf(-128, -3, 0, 127), "abs", longArrayOf(-128, 3, 0, 127)),
            Row(I64.TYPE, longArrayOf(Long.MIN_VALUE, -1, 5, 0), "abs", longArrayOf(Long.MIN_VALUE, 1, 5, 0)),
            Row(U8.TYPE, longArrayOf(255, 0, 1, 128), "abs", longArrayOf(255, 0, 1, 128)),
            Row(I16.TYPE, longArrayOf(-32768, -3, 0, 9), "sign", longArrayOf(-1, -1, 0, 1)),
            Row(U64.TYPE, longArrayOf(-1, 0, 1, Long.MIN_VALUE), "sign", longArrayOf(1, 0, 1, 1)),
            Row(U64.TYPE, longArrayOf(-1, 0, 7, Long.MIN_VALUE), "clip", longArrayOf(100, 3, 7, 100)),
            Row(I32.TYPE, longArrayOf(-7, 0, 7, Int.MAX_VALUE.toLong()), "clip", longArrayOf(3, 3, 7, 100)),
            Row(U16.TYPE, longArrayOf(65535, 0, 5, 2), "floor", longArrayOf(65535, 0, 5, 2)),
        )
        for ((k, row) in table.withIndex()) withClue("row $k: ${row.fn} of ${row.t} ${row.values.toList()}") {
            @Suppress("UNCHECKED_CAST")
            val a = SharedArrays.createAny(row.t, longArrayOf(4), anon) as SharedNDArray<I64>
            a.use {
                a.copyFrom(row.values)
                val r = when (row.fn) {
                    "abs" -> ArrayMath.abs(a)
                    "sign" -> ArrayMath.sign(a)
                    "floor" -> ArrayMath.floor(a)
                    else -> ArrayMath.clip(a, 3, 100)
                }
                r.dtype() shouldBe row.t
                r.toLongArray().toList() shouldBe row.want.toList()
            }
        }
    }

    test("clip bounds: out-of-range bounds that change nothing are allowed, the others refused; float bounds must be whole") {
        array(I8.TYPE, 3).use { a ->
            a.copyFrom(byteArrayOf(-128, 1, 127))
            ArrayMath.clip(a, -1000, 1000).toLongArray().toList() shouldBe listOf(-128L, 1L, 127L)
            ArrayMath.clip(a, -5.0, 5.0).toLongArray().toList() shouldBe listOf(-5L, 1L, 5L)
            shouldThrow<IllegalArgumentException> { ArrayMath.clip(a, 1000, 2000) }.message shouldBe
                "clip of I8 elements to [1000, 2000]: the bound 1000 is out of range for I8 (-128 to 127); numpy refuses it too"
            shouldThrow<IllegalArgumentException> { ArrayMath.clip(a, -2000, -1000) }.message shouldBe
                "clip of I8 elements to [-2000, -1000]: the bound -1000 is out of range for I8 (-128 to 127); numpy refuses it too"
            shouldThrow<DTypeMismatchException> { ArrayMath.clip(a, 0.5, 2.0) }.message shouldBe
                "clip of I8 elements to [0.5, 2.0]: the bound 0.5 is not a whole number (numpy would return float64); " +
                "pass whole numbers, or convert first with a.astype(F64.TYPE)"
        }
        array(F64.TYPE, 4).use { a ->
            a.copyFrom(doubleArrayOf(-1.0, 0.5, Double.NaN, 9.0))
            // lo > hi gives hi, NaN stays NaN (compared as bits: NaN is not equal to itself)
            ArrayMath.clip(a, 3.0, 1.0).toDoubleArray().map { it.toRawBits() } shouldBe
                listOf(1.0, 1.0, Double.NaN, 1.0).map { it.toRawBits() }
            ArrayMath.clip(a, 0, 1).toDoubleArray()[3] shouldBe 1.0
            ArrayMath.clip(a, Double.NaN, 1.0).toDoubleArray().all { it.isNaN() } shouldBe true
        }
    }

    test("float functions refuse integer arrays and name astype; out and exponent arrays must have the input's dtype") {
        array(I32.TYPE, 2).use { a ->
            shouldThrow<DTypeMismatchException> { ArrayMath.sqrt(a) }.message shouldBe
                "sqrt takes F64 and F32 arrays, not I32 (<i4); numpy would return float64: convert first with a.astype(F64.TYPE)"
            shouldThrow<DTypeMismatchException> { ArrayMath.pow(a, 2.0) }.message shouldBe
                "pow takes F64 and F32 arrays, not I32 (<i4); numpy would return float64: convert first with a.astype(F64.TYPE)"
            shouldThrow<DTypeMismatchException> { ArrayMath.pow(a, a) }.message shouldBe
                "pow takes F64 and F32 arrays, not I32 (<i4); convert first with a.astype(F64.TYPE)"
        }
        array(F64.TYPE, 2).use { a ->
            array(F32.TYPE, 2).use { f ->
                @Suppress("UNCHECKED_CAST")
                val wrong = f as SharedNDArray<F64>
                shouldThrow<DTypeMismatchException> { ArrayMath.exp(a, wrong) }.message shouldBe
                    "exp: out is F32 (<f4) but the input is F64 (<f8); out must have the input's dtype (numpy's out= would cast, " +
                    "this library does not): pass an out of F64, or convert with astype"
                shouldThrow<DTypeMismatchException> { ArrayMath.pow(a, wrong) }.message shouldBe
                    "pow: the exponent array is F32 (<f4) but the base is F64 (<f8); they must have one dtype: convert one with astype"
            }
        }
    }

    test("shapes: the input broadcasts into out, never the other way; pow broadcasts its two inputs") {
        array(F64.TYPE, 2, 1).use { a ->
            array(F64.TYPE, 3).use { b ->
                a.copyFrom(doubleArrayOf(2.0, 3.0))
                b.copyFrom(doubleArrayOf(0.0, 1.0, 2.0))
                val r = ArrayMath.pow(a, b)
                r.shape().toList() shouldBe listOf(2L, 3L)
                r.toDoubleArray().toList() shouldBe listOf(1.0, 2.0, 4.0, 1.0, 3.0, 9.0)
                shouldThrow<ShapeMismatchException> { ArrayMath.sqrt(r, b) }.message shouldBe
                    "sqrt: the input of shape [2, 3] does not broadcast to out's shape [3] " +
                    "(numpy's rule: from the last axis, each dimension equal or 1; out is never stretched)"
                shouldThrow<ShapeMismatchException> { ArrayMath.pow(b, r, b) }.message shouldBe
                    "pow: the exponent of shape [2, 3] does not broadcast to out's shape [3] " +
                    "(numpy's rule: from the last axis, each dimension equal or 1; out is never stretched)"
                array(F64.TYPE, 2).use { c ->
                    val e = shouldThrow<ShapeMismatchException> { ArrayMath.pow(b, c) }.message!!
                    e shouldContain "[3]"
                    e shouldContain "[2]"
                }
            }
        }
    }

    test("closed arrays are refused") {
        val a = array(F64.TYPE, 2)
        val out = array(F64.TYPE, 2)
        out.close()
        shouldThrow<IllegalStateException> { ArrayMath.sqrt(a, out) }
        a.close()
        shouldThrow<IllegalStateException> { ArrayMath.sqrt(a) }
    }

    test("sqrt(a, out) waits for a writer of a and for a reader of out") {
        array(F64.TYPE, 4).use { a ->
            array(F64.TYPE, 4).use { out ->
                a.fill(4.0)
                for (take in listOf({ a.lockWrite() }, { out.lockRead() })) {
                    out.fill(0.0)
                    val held = take()
                    val done = CompletableFuture.runAsync { ArrayMath.sqrt(a, out) }
                    Thread.sleep(200)
                    done.isDone shouldBe false
                    out.getDouble(0) shouldBe 0.0
                    held.close()
                    done.get(10, TimeUnit.SECONDS)
                    out.getDouble(3) shouldBe 2.0
                }
            }
        }
    }

    test("pow takes three locks in one global order: crossing calls in three threads do not deadlock") {
        val xs = List(3) { array(F64.TYPE, 64).also { it.fill(1.0) } }
        try {
            val jobs = (0 until 3).map { k ->
                CompletableFuture.runAsync {
                    repeat(2000) { ArrayMath.pow(xs[k], xs[(k + 1) % 3], xs[(k + 2) % 3]) }
                }
            }
            jobs.forEach { it.get(60, TimeUnit.SECONDS) }
            xs.forEach { x -> x.toDoubleArray().all { it == 1.0 } shouldBe true }
        } finally {
            xs.forEach { it.close() }
        }
    }
})
