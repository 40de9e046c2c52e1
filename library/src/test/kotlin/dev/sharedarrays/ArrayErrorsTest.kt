package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldStartWith

/** Each misuse is a specific exception whose message carries the values. */
class ArrayErrorsTest : FunSpec({
    val opts = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    test("wrong index count") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), opts).use { a ->
            shouldThrow<IndexOutOfBoundsException> { a.getDouble(longArrayOf(1)) }.message shouldBe
                "1 indices [1] for an array of 2 dimensions, shape [2, 3]; an element needs 2 indices: for the view of the " +
                "remaining axes write a[1, all] in Kotlin, view(Slice.index(...)) in Java"
            shouldThrow<IndexOutOfBoundsException> { a.getDouble(longArrayOf(1, 2, 0)) }.message shouldBe
                "3 indices [1, 2, 0] for an array of 2 dimensions, shape [2, 3]"
        }
    }

    test("out-of-range index names index, axis and bound") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), opts).use { a ->
            shouldThrow<IndexOutOfBoundsException> { a.getDouble(longArrayOf(1, 3)) }.message shouldBe
                "index 3 is out of bounds for axis 1 with size 3 (shape [2, 3])"
            shouldThrow<IndexOutOfBoundsException> { a.select(0, 2) }.message shouldBe
                "index 2 is out of bounds for axis 0 with size 2"
            shouldThrow<IndexOutOfBoundsException> { a.sum(2) }.message shouldBe
                "axis 2 is out of bounds for an array of 2 dimensions"
        }
    }

    test("dtype mismatch between two arrays") {
        SharedArrays.create(F64.TYPE, longArrayOf(3), opts).use { a ->
            SharedArrays.create(I32.TYPE, longArrayOf(3), opts).use { b ->
                @Suppress("UNCHECKED_CAST")
                val e = shouldThrow<DTypeMismatchException> { a.add(b as SharedNDArray<F64>) }
                e.message shouldBe "cannot add a I32 array into a F64 array: dtypes differ (<f8 vs <i4); convert one with astype"
            }
        }
    }

    test("shape mismatch") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), opts).use { a ->
            SharedArrays.create(F64.TYPE, longArrayOf(3, 3), opts).use { b ->
                shouldThrow<ShapeMismatchException> { a.add(b) }.message shouldBe
                    "cannot add arrays of shapes [2, 3] and [3, 3] in place: the right side must broadcast to the left's shape (numpy's rule: trailing dimensions equal or 1)"
                shouldThrow<ShapeMismatchException> { a.transpose().mul(b.slice(0, 0, 2, 1).transpose().slice(0, 0, 2, 1)) }
                    .message shouldStartWith "cannot multiply arrays of shapes [3, 2] and [2, 2]"
            }
            // same element count, both contiguous: allowed (DESIGN)
            SharedArrays.create(F64.TYPE, longArrayOf(6), opts).use { c ->
                c.fill(1.0)
                a.add(c)
                a.sum() shouldBe 6.0
            }
        }
    }

    test("reshape to a different element count, and of a non-contiguous view") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), opts).use { a ->
            shouldThrow<ShapeMismatchException> { a.reshape(4, 2) }.message shouldBe
                "cannot reshape an array of size 6 (shape [2, 3]) into shape [4, 2]"
            shouldThrow<IllegalStateException> { a.transpose().reshape(6) }.message shouldBe
                "reshape of a non-contiguous view (shape [3, 2], strides [1, 3]) would need a copy; call copy() first"
        }
    }

    test("slices that select nothing, and a zero step") {
        SharedArrays.create(F64.TYPE, longArrayOf(5), opts).use { a ->
            shouldThrow<IllegalArgumentException> { a.slice(0, 3, 3, 1) }.message shouldBe
                "slice [3:3:1] of axis 0 (size 5) selects no element; arrays have at least one element per axis"
            shouldThrow<IllegalArgumentException> { Slice.of(0, 5, 0) }.message shouldBe "slice step must not be 0"
        }
    }

    test("views: closing a view leaves the array; closing the array invalidates its views") {
        val a = SharedArrays.create(F64.TYPE, longArrayOf(4), opts)
        val v = a.slice(0, 1, 3, 1)
        v.close()
        a.getDouble(0) shouldBe 0.0
        shouldThrow<IllegalStateException> { v.getDouble(0) }
        val w = a.reshape(2, 2)
        shouldThrow<IllegalStateException> { w.destroy() }
        a.close()
        shouldThrow<IllegalStateException> { w.sum() }
    }

    test("toString prints the values as numpy's str(a) and elides large arrays") {
        SharedArrays.create(I32.TYPE, longArrayOf(2, 3), opts).use { a ->
            a.copyFrom(intArrayOf(1, 2, 3, 4, 5, 6))
            a.toString().substringAfter("\n") shouldBe "[[1 2 3]\n [4 5 6]]"
            a.toString() shouldStartWith "SharedNDArray(I32, shape=[2, 3], anonymous://"
        }
        SharedArrays.create(F64.TYPE, longArrayOf(2000), opts).use { a ->
            for (i in 0 until 2000L) a.setDouble(i, i.toDouble())
            a.toString().substringAfter("\n") shouldBe "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
        }
        // F32 prints float32's shortest digits, not the widened double's (-1.7252981662750244)
        SharedArrays.create(F32.TYPE, longArrayOf(3), opts).use { a ->
            a.setDouble(0, -1.7252982); a.setDouble(1, 0.1); a.setDouble(2, 2.5)
            a.toString().substringAfter("\n") shouldBe "[-1.7252982  0.1        2.5      ]"
            a.copy().toString().substringAfter("\n") shouldBe "[-1.7252982  0.1        2.5      ]"
        }
    }
})
