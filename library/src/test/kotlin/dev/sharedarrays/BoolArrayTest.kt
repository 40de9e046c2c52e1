package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import java.util.concurrent.TimeUnit

/** The Bool element type: 0/1 elements, numpy's casts to bool, no arithmetic, numpy reads it as bool. */
class BoolArrayTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    test("Bool is the 11th element type, numpy's |b1") {
        Bool.TYPE.name() shouldBe "BOOL"
        Bool.TYPE.descr() shouldBe "|b1"
        Bool.TYPE.itemSize() shouldBe 1
        Bool.TYPE.code() shouldBe 11
        Bool.TYPE.isBool shouldBe true
        Bool.TYPE.isFloatingPoint shouldBe false
        Bool.TYPE.isUnsigned shouldBe false
        DType.all().size shouldBe 11
        DType.all().last() shouldBe Bool.TYPE
        DType.of("bool") shouldBe Bool.TYPE
        DType.of("|b1") shouldBe Bool.TYPE
        DType.of("b1") shouldBe Bool.TYPE // numpy's descr without its byte order, as np.dtype("b1") takes it
        DType.of("f8") shouldBe F64.TYPE
        DType.of("u2") shouldBe U16.TYPE
        DType.ofCode(11) shouldBe Bool.TYPE
    }

    test("elements read 0 or 1; a nonzero or NaN store is 1, as numpy's cast to bool") {
        SharedArrays.create(Bool.TYPE, longArrayOf(8), anon).use { a ->
            a.setLong(0, 5)
            a.setLong(1, -1)
            a.setLong(2, 256) // would wrap to 0 in a byte: a bool keeps it true
            a.setDouble(3, 0.25)
            a.setDouble(4, Double.NaN)
            a.setDouble(5, -0.0)
            a.setLong(6, 0)
            a.setDouble(7, Double.NEGATIVE_INFINITY)
            a.toLongArray().toList() shouldBe listOf(1L, 1, 1, 1, 1, 0, 0, 1)
            a.toDoubleArray().toList() shouldBe listOf(1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0)
            a.toBooleanArray().toList() shouldBe listOf(true, true, true, true, true, false, false, true)
            a.toList() shouldBe listOf<Number>(1, 1, 1, 1, 1, 0, 0, 1)
            // bytes another process wrote that are neither 0 nor 1 read as true
            a.data().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 6, 7.toByte())
            a.getLong(6) shouldBe 1
            a.getDouble(6) shouldBe 1.0
        }
    }

    test("fill, copies from and to heap arrays, copy(), and copies between Bool arrays") {
        SharedArrays.create(Bool.TYPE, longArrayOf(2, 3), anon).use { a ->
            a.fill(0.5)
            a.toLongArray().toList() shouldBe List(6) { 1L }
            a.fill(0L)
            a.sum() shouldBe 0.0
            a.fill(-3L)
            a.sum() shouldBe 6.0
            a.copyFrom(booleanArrayOf(true, false, false, true, true, false))
            a.toBooleanArray().toList() shouldBe listOf(true, false, false, true, true, false)
            a.copyFrom(byteArrayOf(0, 2, -1, 0, 1, 0))
            a.toLongArray().toList() shouldBe listOf(0L, 1, 1, 0, 1, 0)
            a.copyFrom(doubleArrayOf(0.0, 0.1, Double.NaN, -0.0, 3.0, 0.0))
            a.toLongArray().toList() shouldBe listOf(0L, 1, 1, 0, 1, 0)
            a.copyFrom(longArrayOf(0, 0, 9, 0, Long.MIN_VALUE, 1))
            a.toLongArray().toList() shouldBe listOf(0L, 0, 1, 0, 1, 1)
            val t = a.transpose()
            t.toBooleanArray().toList() shouldBe listOf(false, false, false, true, true, true)
            t.copy().use { c ->
                c.dtype() shouldBe Bool.TYPE
                c.toLongArray().toList() shouldBe listOf(0L, 0, 0, 1, 1, 1)
            }
            SharedArrays.create(Bool.TYPE, longArrayOf(2, 3), anon).use { b ->
                b.copyFrom(a)
                b.toLongArray().toList() shouldBe listOf(0L, 0, 1, 0, 1, 1)
            }
            // another type's heap array from a Bool array: 0 and 1
            a.toIntArray().toList() shouldBe listOf(0, 0, 1, 0, 1, 1)
            a.toFloatArray().toList() shouldBe listOf(0f, 0f, 1f, 0f, 1f, 1f)
        }
        SharedArrays.create(F64.TYPE, longArrayOf(3), anon).use { f ->
            f.copyFrom(booleanArrayOf(true, false, true))
            f.toDoubleArray().toList() shouldBe listOf(1.0, 0.0, 1.0)
            f.copyFrom(doubleArrayOf(0.0, -2.5, Double.NaN))
            f.toBooleanArray().toList() shouldBe listOf(false, true, true)
        }
    }

    test("sum counts the true elements; min and max are 0 or 1, whole and per axis") {
        SharedArrays.create(Bool.TYPE, longArrayOf(3, 100), anon).use { a ->
            for (i in 0 until 300L) a.setLong(i, if (i % 3 == 0L) 1 else 0)
            a.sum() shouldBe 100.0
            a.mean() shouldBe (100.0 / 300)
            a.minAsLong() shouldBe 0
            a.maxAsLong() shouldBe 1
            a.sum(1).toDoubleArray().toList() shouldBe listOf(34.0, 33.0, 33.0)
            a.max(0).use { m ->
                m.dtype() shouldBe Bool.TYPE
                m.sum() shouldBe 100.0
            }
        }
    }

    test("astype to and from Bool: nonzero (NaN too) is true, true is 1") {
        SharedArrays.create(F64.TYPE, longArrayOf(5), anon).use { f ->
            f.copyFrom(doubleArrayOf(0.0, 0.5, Double.NaN, -1e300, -0.0))
            val b = f.astype(Bool.TYPE)
            b.toLongArray().toList() shouldBe listOf(0L, 1, 1, 1, 0)
            b.astype(F64.TYPE).toDoubleArray().toList() shouldBe listOf(0.0, 1.0, 1.0, 1.0, 0.0)
            b.astype(I8.TYPE).toLongArray().toList() shouldBe listOf(0L, 1, 1, 1, 0)
            shouldThrow<ArithmeticException> { f.astype(U64.TYPE) } // NaN has no U64 value, but a Bool one
        }
        SharedArrays.create(I64.TYPE, longArrayOf(3), anon).use { i ->
            i.copyFrom(longArrayOf(Long.MIN_VALUE, 0, 256))
            i.astype(Bool.TYPE).toLongArray().toList() shouldBe listOf(1L, 0, 1)
        }
    }

    test("factories, sorting, cumsum, argmax, concatenate and .npy files take Bool arrays; math refuses them") {
        NDArrays.full(Bool.TYPE, 5L, 3).toLongArray().toList() shouldBe listOf(1L, 1, 1)
        NDArrays.full(Bool.TYPE, Double.NaN, 2).toLongArray().toList() shouldBe listOf(1L, 1)
        NDArrays.full(Bool.TYPE, 0.0, 2).toLongArray().toList() shouldBe listOf(0L, 0)
        NDArrays.ones(Bool.TYPE, 2).toLongArray().toList() shouldBe listOf(1L, 1)
        val b = NDArrays.zeros(Bool.TYPE, 2, 4)
        b.copyFrom(booleanArrayOf(true, false, true, true, false, false, true, false))
        b.sorted().toLongArray().toList() shouldBe listOf(0L, 1, 1, 1, 0, 0, 0, 1)
        b.cumsum(1).toLongArray().toList() shouldBe listOf(1L, 1, 2, 3, 0, 0, 1, 1)
        b.argmax() shouldBe 0
        b.argmin() shouldBe 1
        NDArrays.concatenate(listOf(b, b.not())).sum() shouldBe 8.0
        shouldThrow<DTypeMismatchException> { ArrayMath.clip(b, 0L, 1L) }.message shouldBe
            "clip takes number arrays, not BOOL (|b1); convert first with a.astype(I64.TYPE)"
        shouldThrow<DTypeMismatchException> { ArrayMath.sqrt(b) }
        val dir = dev.sharedarrays.testing.scratchDir("boolnpy")
        try {
            val path = dir.toPath().resolve("b.npy")
            b.transpose().save(path)
            val p = ProcessBuilder("python3", "-c", "import numpy as np, sys; a = np.load(sys.argv[1]); print(a.dtype, a.shape, a.ravel().tolist()); " +
                "np.save(sys.argv[1], ~a)", path.toString()).redirectErrorStream(true).start()
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(60, TimeUnit.SECONDS) shouldBe true
            text.trim().lines().last() shouldBe "bool (4, 2) [True, False, False, False, True, True, True, False]"
            val back = SharedArrays.load(path)
            back.dtype() shouldBe Bool.TYPE
            back.shape().toList() shouldBe listOf(4L, 2L)
            back.toLongArray().toList() shouldBe listOf(0L, 1, 1, 1, 0, 0, 0, 1)
        } finally {
            dir.deleteRecursively()
        }
    }

    test("toString prints True and False") {
        SharedArrays.create(Bool.TYPE, longArrayOf(2, 2), anon).use { a ->
            a.setLong(1, 1)
            a.setLong(2, 1)
            a.toString() shouldContain "True"
            a.toString() shouldContain "False"
            a.toString() shouldContain "BOOL"
        }
    }

    test("Bool arrays have no arithmetic") {
        SharedArrays.create(Bool.TYPE, longArrayOf(4), anon).use { a ->
            SharedArrays.create(Bool.TYPE, longArrayOf(4), anon).use { b ->
                shouldThrow<DTypeMismatchException> { a.add(1L) }.message shouldBe
                    "cannot add BOOL arrays: Bool has no arithmetic; use the logical and/or/xor/not, or convert to a number type first"
                shouldThrow<DTypeMismatchException> { a.sub(1.0) }.message shouldStartWith "cannot subtract BOOL arrays"
                shouldThrow<DTypeMismatchException> { a.mul(b) }.message shouldStartWith "cannot multiply BOOL arrays"
                shouldThrow<DTypeMismatchException> { a.divide(b) }.message shouldStartWith "cannot divide BOOL arrays"
                // out of place too
                shouldThrow<DTypeMismatchException> { a.plus(b) }.message shouldStartWith "cannot add BOOL arrays"
                shouldThrow<DTypeMismatchException> { a.negate() }.message shouldStartWith "cannot subtract BOOL arrays"
                shouldThrow<DTypeMismatchException> { a.times(2L) }.message shouldStartWith "cannot multiply BOOL arrays"
                a.toLongArray().toList() shouldBe listOf(0L, 0, 0, 0)
            }
        }
    }

    test("a Bool shared array is a .npy that numpy maps as dtype bool, and the JVM sees numpy's writes") {
        SharedArrays.create(Bool.TYPE, longArrayOf(2, 5), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            a.copyFrom(booleanArrayOf(true, false, true, true, false, false, false, true, false, true))
            val script = """
                import sys
                import numpy as np
                a = np.load(sys.argv[1], mmap_mode='r+')
                print(a.dtype, a.dtype.str, a.shape, int(a.sum()), a.ravel().tolist())
                a[:, 0] = [False, True]
                a[1, 4] = 7
                a.flush()
            """.trimIndent()
            val p = ProcessBuilder("python3", "-c", script, a.path().get().toString()).redirectErrorStream(true).start()
            val text = p.inputStream.bufferedReader().readText()
            p.waitFor(60, TimeUnit.SECONDS) shouldBe true
            if (p.exitValue() != 0) throw AssertionError("python3 failed:\n$text")
            text.trim().lines().last() shouldBe
                "bool |b1 (2, 5) 5 [True, False, True, True, False, False, False, True, False, True]"
            a.toLongArray().toList() shouldBe listOf(0L, 0, 1, 1, 0, 1, 0, 1, 0, 1)
            SharedArrays.inspect(a.handle()).dtype() shouldBe Bool.TYPE
        }
    }
})
