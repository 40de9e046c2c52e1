package dev.sharedarrays.internal.array

import dev.sharedarrays.ShapeMismatchException
import dev.sharedarrays.testing.unravel
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.arbitrary.int
import io.kotest.property.arbitrary.list
import io.kotest.property.checkAll

/**
 * The strided layout arithmetic and the shape arithmetic on their own, against plain index
 * arithmetic: offsets of slices, selections and transposes, axis merging, extents, row walks.
 */
class StridedLayoutTest : FunSpec({
    fun offsetsOf(l: StridedLayout): List<Long> = (0 until l.size()).map { l.offsetOfFlat(it) }

    test("a contiguous layout has row-major strides and flat offsets 0 until size") {
        val l = StridedLayout.contiguous(longArrayOf(2, 3, 4))
        l.strides().toList() shouldBe listOf(12L, 4L, 1L)
        l.isContiguous() shouldBe true
        offsetsOf(l) shouldBe (0L until 24L).toList()
        l.offsetOf(longArrayOf(1, 2, 3)) shouldBe 23L
    }

    test("slice, select and transpose give the offsets plain index arithmetic gives") {
        checkAll(PropTestConfig(iterations = 300), Arb.list(Arb.int(1..5), 1..4), Arb.int(), Arb.int(-3..3)) { dims, pick, stepPick ->
            val shape = dims.map { it.toLong() }.toLongArray()
            val base = StridedLayout.contiguous(shape)
            val axis = Math.floorMod(pick, shape.size)
            val step = if (stepPick == 0) 1L else stepPick.toLong()
            val d = shape[axis]
            val s = base.slice(axis, Long.MIN_VALUE, Long.MAX_VALUE, step)
            // the same as Python's range(len)[::step] on that axis
            val kept = if (step > 0) (0 until d step step).toList() else (d - 1 downTo 0 step -step).toList()
            s.shape()[axis] shouldBe kept.size.toLong()
            for (flat in 0 until s.size()) {
                val idx = unravel(flat.toInt(), s.shape().toList())
                val baseIdx = idx.clone().also { it[axis] = kept[idx[axis].toInt()] }
                s.offsetOfFlat(flat) shouldBe base.offsetOf(baseIdx)
            }
            if (shape.size > 1) {
                val k = d - 1
                val sel = base.select(axis, -1)
                sel.ndim() shouldBe shape.size - 1
                for (flat in 0 until sel.size()) {
                    val idx = unravel(flat.toInt(), sel.shape().toList()).toMutableList()
                    idx.add(axis, k)
                    sel.offsetOfFlat(flat) shouldBe base.offsetOf(idx.toLongArray())
                }
            }
            val perm = shape.indices.reversed().toList().toIntArray()
            val t = base.transpose(perm)
            for (flat in 0 until t.size()) {
                val idx = unravel(flat.toInt(), t.shape().toList())
                t.offsetOfFlat(flat) shouldBe base.offsetOf(idx.reversedArray())
            }
        }
    }

    test("coalesce merges adjacent axes without changing the offsets in row-major order") {
        val l = StridedLayout.contiguous(longArrayOf(4, 5)).slice(1, 0, 5, 2)   // every other column of an odd width: not mergeable
        l.coalesce().ndim() shouldBe 2
        StridedLayout.contiguous(longArrayOf(2, 1, 3, 4)).coalesce().shape().toList() shouldBe listOf(24L)
        val rows = StridedLayout.contiguous(longArrayOf(3, 4, 5)).slice(0, 0, 3, 2)
        rows.coalesce().shape().toList() shouldBe listOf(2L, 20L)
        offsetsOf(rows.coalesce()) shouldBe offsetsOf(rows)
    }

    test("rows visit every element once, in row-major order, in bytes") {
        val l = StridedLayout.contiguous(longArrayOf(3, 4)).transpose(intArrayOf(1, 0)).slice(0, Long.MIN_VALUE, Long.MAX_VALUE, -1)
        val seen = mutableListOf<Long>()
        Loops.rows(l, 8) { off, stride, n -> for (k in 0 until n) seen += (off + k * stride) / 8 }
        seen shouldBe offsetsOf(l)
    }

    test("extent spans the lowest and highest offset of a view, also with negative strides") {
        val l = StridedLayout.contiguous(longArrayOf(5, 5)).slice(1, Long.MIN_VALUE, Long.MAX_VALUE, -2)
        val offsets = offsetsOf(l)
        l.extent().toList() shouldBe listOf(offsets.min(), offsets.max())
    }

    test("out-of-range indices and axes are errors naming the index, the axis and the bound") {
        val l = StridedLayout.contiguous(longArrayOf(2, 3))
        shouldThrow<IndexOutOfBoundsException> { l.offsetOf(longArrayOf(1, 3)) }.message shouldBe
            "index 3 is out of bounds for axis 1 with size 3 (shape [2, 3])"
        shouldThrow<IndexOutOfBoundsException> { l.select(2, 0) }.message shouldBe
            "axis 2 is out of bounds for an array of 2 dimensions"
        shouldThrow<IllegalArgumentException> { l.slice(0, 2, 2, 1) }.message shouldBe
            "slice [2:2:1] of axis 0 (size 2) selects no element; arrays have at least one element per axis"
    }

    context("reshape infers one -1 dimension and refuses other counts") {
        withData(
            listOf(longArrayOf(-1, 4), longArrayOf(2, -1, 2), longArrayOf(12), longArrayOf(-1)),
        ) { ask ->
            Shapes.size(Shapes.reshape(longArrayOf(3, 4), 12, ask)) shouldBe 12L
        }
    }

    test("reshape errors say what is wrong") {
        shouldThrow<ShapeMismatchException> { Shapes.reshape(longArrayOf(3, 4), 12, longArrayOf(5, -1)) }.message shouldBe
            "cannot reshape an array of size 12 (shape [3, 4]) into shape [5, -1]"
        shouldThrow<IllegalArgumentException> { Shapes.reshape(longArrayOf(12), 12, longArrayOf(0, 12)) }.message shouldBe
            "reshape to [0, 12]: dimension 0 is 0; dimensions are >= 1, or one of them -1"
        shouldThrow<IllegalArgumentException> { Shapes.reshape(longArrayOf(1), 1, LongArray(9) { 1 }) }.message shouldBe
            "reshape to [1, 1, 1, 1, 1, 1, 1, 1, 1]: arrays have 1 to 8 dimensions"
    }

    test("removeAxis and the shape of an axis reduction") {
        Shapes.removeAxis(longArrayOf(2, 3, 4), 1).toList() shouldBe listOf(2L, 4L)
        AxisReduction.outShape(longArrayOf(7), 0).toList() shouldBe listOf(1L)
        shouldThrow<IndexOutOfBoundsException> { AxisReduction.outShape(longArrayOf(2, 3), 2) }
    }
})
