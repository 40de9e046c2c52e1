package dev.sharedarrays.dsl

import dev.sharedarrays.Backend
import dev.sharedarrays.Bool
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U8
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe

class MasksDslTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    test("infix comparisons, and/or/xor/not, where, a[mask] and a[mask] = v read like numpy") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), anon).use { a ->
            a.copyFrom(doubleArrayOf(0.1, 0.7, Double.NaN, 0.5, 0.9, -2.0))
            val m: SharedNDArray<Bool> = a gt 0.5
            m.toBooleanArray().toList() shouldBe listOf(false, true, false, false, true, false)
            m[0, 1] shouldBe true
            m[1, 2] shouldBe false
            (a ge 0.5).sum() shouldBe 3.0
            (a ne a).toBooleanArray().toList() shouldBe listOf(false, false, true, false, false, false)
            (a lt 1).sum() shouldBe 5.0
            ((a gt 0.2) and (a lt 0.8)).sum() shouldBe 2.0
            ((a lt 0) or (a gt 0.8)).sum() shouldBe 2.0
            ((a gt 0.2) xor (a gt 0.6)).sum() shouldBe 1.0
            (!m).sum() shouldBe 4.0
            where(m, a, 0.0).toDoubleArray().toList() shouldBe listOf(0.0, 0.7, 0.0, 0.0, 0.9, 0.0)
            where(m, -1, a.transpose().transpose()).toDoubleArray().toList() shouldBe listOf(0.1, -1.0, Double.NaN, 0.5, -1.0, -2.0)
            where(m, 1.0, 0.0).toDoubleArray().toList() shouldBe listOf(0.0, 1.0, 0.0, 0.0, 1.0, 0.0)
            val counts: SharedNDArray<I64> = where(m, 1, 0)
            counts.sum() shouldBe 2.0
            a[m].toDoubleArray().toList() shouldBe listOf(0.7, 0.9)
            a[a ne a] = 0.0
            a[m] = a[m]
            a[a lt 0] = 3
            a.toDoubleArray().toList() shouldBe listOf(0.1, 0.7, 0.0, 0.5, 0.9, 3.0)
        }
    }

    test("integer scalars compare exactly; Bool arrays read and write Booleans") {
        SharedArrays.create(U8.TYPE, longArrayOf(3), anon).use { u ->
            u.copyFrom(intArrayOf(0, 200, 255))
            (u gt 199).sum() shouldBe 2.0
            (u gt 300).sum() shouldBe 0.0
            (u ge -1L).sum() shouldBe 3.0
            (u eq 200.0).sum() shouldBe 1.0
        }
        SharedArrays.create(I32.TYPE, longArrayOf(4), anon).use { i ->
            i.copyFrom(intArrayOf(1, 2, 3, 4))
            val j = SharedArrays.create(I32.TYPE, longArrayOf(4), anon)
            j.use {
                it.copyFrom(intArrayOf(4, 2, 1, 4))
                (i eq it).toBooleanArray().toList() shouldBe listOf(false, true, false, true)
                (i gt it).toBooleanArray().toList() shouldBe listOf(false, false, true, false)
            }
        }
        sharedArrays {
            val b = bool(2, 2)
            b[0, 1] = true
            b[1, 1] = true
            val x: Boolean = b[0, 1]
            x shouldBe true
            b.max() shouldBe true
            b.min() shouldBe false
            b.sum() shouldBe 2.0
            dtypeOf<Bool>() shouldBe Bool.TYPE
        }
    }
})
