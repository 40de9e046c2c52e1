package dev.sharedarrays.dsl

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.DTypeMismatchException
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.SharedArrays
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.types.shouldBeSameInstanceAs

class AttachTest : FunSpec({
    test("dtypeOf maps every marker class to its instance") {
        for (t in DType.all()) {
            @Suppress("UNCHECKED_CAST")
            dtypeOf(t::class as kotlin.reflect.KClass<F64>) shouldBeSameInstanceAs t
        }
    }

    test("attach<T> types the array and refuses another element type") {
        SharedArrays.create(F64.TYPE, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            a.setDouble(2, 1.5)
            attach<F64>(a.handle().toString()).use { b -> b.getDouble(2) shouldBe 1.5 }
            shouldThrow<DTypeMismatchException> { attach<I32>(a.handle()) }
        }
    }
})
