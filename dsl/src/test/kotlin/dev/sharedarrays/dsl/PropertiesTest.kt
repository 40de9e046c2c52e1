package dev.sharedarrays.dsl

import dev.sharedarrays.F64
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain

/** numpy's attributes read as Kotlin properties; a[i] on a matrix is a clear error that names the row view. */
class PropertiesTest : FunSpec({
    test("shape, strides, size, ndim, dtype, handle and isContiguous are properties") {
        sharedArrays {
            val a = f64(3, 4)
            a.shape.toList() shouldBe listOf(3L, 4L)
            a.strides.toList() shouldBe listOf(4L, 1L)
            a.size shouldBe 12L
            a.ndim shouldBe 2
            a.dtype shouldBe F64.TYPE
            a.handle shouldBe a.handle()
            a.isContiguous shouldBe true
            val t = a.transpose()
            t.shape.toList() shouldBe listOf(4L, 3L)
            t.isContiguous shouldBe false
        }
    }

    test("a[1] on a matrix names a[1, all]; a[1, all] is the row") {
        sharedArrays {
            val a = f64(3, 4)
            a[1, 2] = 5.0
            shouldThrow<IndexOutOfBoundsException> { a[1] }.message shouldContain "write a[1, all] in Kotlin"
            a[1, all].size shouldBe 4L
            a[1, all][2] shouldBe 5.0
        }
    }
})
