package dev.sharedarrays.internal.segment

import dev.sharedarrays.Backend
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.U8
import dev.sharedarrays.internal.kernel.ShapeLimits
import dev.sharedarrays.internal.segment.SegmentDescriptor.CONTROL_SIZE
import dev.sharedarrays.internal.segment.SegmentDescriptor.DATA_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.MAX_DATA_BYTES
import dev.sharedarrays.internal.segment.SegmentDescriptor.PAGE
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.longs.shouldBeGreaterThanOrEqual
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.property.Arb
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll

/** The segment descriptor's arithmetic and the .npy header it writes, byte by byte. */
class SegmentDescriptorTest : FunSpec({
    context("data length is the product of the shape and the item size, or -1") {
        data class Case(val shape: List<Long>, val itemSize: Int, val length: Long)
        withData(
            mapOf(
                "2x3 of 8 bytes" to Case(listOf(2, 3), 8, 48),
                "one byte" to Case(listOf(1), 1, 1),
                "exactly 1 TiB" to Case(listOf(1L shl 20, 1L shl 20), 1, MAX_DATA_BYTES),
                "one item over 1 TiB" to Case(listOf(1L shl 20, 1L shl 20), 2, -1),
                "a dimension 0" to Case(listOf(4, 0, 4), 8, -1),
                "a negative dimension" to Case(listOf(-1), 8, -1),
                "one dimension past the limit" to Case(listOf(Long.MAX_VALUE), 1, -1),
                "a product that overflows a long" to Case(listOf(3_037_000_500, 3_037_000_500), 1, -1),
                "eight dimensions" to Case(listOf(2, 2, 2, 2, 2, 2, 2, 2), 4, 1024),
            ),
        ) { c ->
            ShapeLimits.dataLength(c.shape.toLongArray(), c.itemSize) shouldBe c.length
        }
    }

    context("the control block starts at the first page boundary after the data") {
        data class Case(val dataLength: Long, val controlOffset: Long, val fileSize: Long)
        withData(
            mapOf(
                "1 byte" to Case(1, 8192, 12288),
                "48 bytes" to Case(48, 8192, 12288),
                "one page" to Case(4096, 8192, 12288),
                "one page and a byte" to Case(4097, 12288, 16384),
                "1 TiB" to Case(MAX_DATA_BYTES, MAX_DATA_BYTES + 4096, MAX_DATA_BYTES + 8192),
            ),
        ) { c ->
            SegmentDescriptor.controlOffset(c.dataLength) shouldBe c.controlOffset
            SegmentDescriptor.fileSize(c.dataLength) shouldBe c.fileSize
        }
    }

    test("file size: whole pages, room for header, data and control block, less than a page of padding") {
        checkAll(1000, Arb.long(1L..MAX_DATA_BYTES)) { n ->
            val size = SegmentDescriptor.fileSize(n)
            size % PAGE shouldBe 0L
            val needed = DATA_OFFSET + n + CONTROL_SIZE
            size shouldBeGreaterThanOrEqual needed
            size - needed shouldBeLessThan PAGE.toLong()
        }
    }

    context("the header is the .npy v1.0 header numpy writes, padded to 4096 bytes") {
        data class Case(val descr: String, val shape: List<Long>, val dict: String)
        withData(
            mapOf(
                "2-d f8" to Case("<f8", listOf(2, 3), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"),
                "1-d u1 keeps the tuple comma" to Case("|u1", listOf(5), "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"),
                "8-d i2" to Case("<i2", listOf(1, 2, 3, 4, 5, 6, 7, 8),
                    "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8), }"),
                "large dimensions" to Case("<f8", listOf(1L shl 20, 1L shl 17),
                    "{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 131072), }"),
            ),
        ) { c ->
            val h = SegmentDescriptor.npyHeader(c.descr, c.shape.toLongArray())
            h.size shouldBe 4096
            h.copyOfRange(0, 6).toList() shouldBe listOf(0x93.toByte()) + "NUMPY".toByteArray().toList()
            (h[6] to h[7]) shouldBe (1.toByte() to 0.toByte()) // format version 1.0
            val headerLen = (h[8].toInt() and 0xff) or ((h[9].toInt() and 0xff) shl 8) // uint16, little-endian
            headerLen shouldBe 4086
            (10 + headerLen) % 64 shouldBe 0 // numpy aligns the data to 64 bytes
            val text = String(h, 10, headerLen, Charsets.US_ASCII)
            h.drop(10).all { it in 0x20..0x7e || it == '\n'.code.toByte() } shouldBe true
            text.trimEnd(' ', '\n') shouldBe c.dict
            text.substring(c.dict.length, headerLen - 1).all { it == ' ' } shouldBe true
            text.last() shouldBe '\n'
            SegmentDescriptor.npyPrefix(c.descr, c.shape.toLongArray()).toList() shouldBe h.copyOf(10 + c.dict.length).toList()
        }
    }

    context("a new segment's shape stays inside the descriptor's limits") {
        withData(
            mapOf(
                "no dimensions" to (longArrayOf() to "an array has 1 to 8 dimensions, but shape [] has 0"),
                "nine dimensions" to (LongArray(9) { 1 } to
                    "an array has 1 to 8 dimensions, but shape [1, 1, 1, 1, 1, 1, 1, 1, 1] has 9"),
                "a dimension 0" to (longArrayOf(3, 0) to "shape[1] is 0, every dimension must be >= 1"),
                "over 1 TiB" to (longArrayOf(1L shl 37, 2) to "shape [137438953472, 2] of F64 needs more than the limit of " +
                    "1 TiB (1099511627776 bytes) or overflows a long"),
            ),
        ) { (shape, message) ->
            shouldThrow<IllegalArgumentException> { SegmentFacts.forNew(F64.TYPE, shape, false, Backend.SHM) }.message shouldBe message
        }
    }

    test("a new segment's facts: its shape copied, its length and flags computed, this process its creator") {
        val shape = longArrayOf(3, 5)
        val f = SegmentFacts.forNew(I16.TYPE, shape, true, Backend.FILE)
        shape[0] = 99
        f.shape().toList() shouldBe listOf(3L, 5L)
        f.dataLength() shouldBe 30
        f.elementCount() shouldBe 15
        f.fileSize() shouldBe 12288
        f.persistent() shouldBe true
        f.backend() shouldBe Backend.FILE
        f.creatorPid() shouldBe ProcessHandle.current().pid()
        SegmentFacts.forNew(U8.TYPE, longArrayOf(1), false, Backend.MEMFD).let {
            it.persistent() shouldBe false
            it.backend() shouldBe Backend.MEMFD
        }
    }

    test("every segment header has the segment mark; numpy's header and other magic-only prefixes do not") {
        for ((descr, shape) in listOf("<f8" to longArrayOf(2, 3), "|u1" to longArrayOf(1), "<i2" to LongArray(8) { 2 })) {
            SegmentDescriptor.hasSegmentMark(SegmentDescriptor.npyHeader(descr, shape)) shouldBe true
        }
        // what numpy writes for np.arange(496.0): HEADER_LEN 118
        val numpy = byteArrayOf(0x93.toByte(), 'N'.code.toByte(), 'U'.code.toByte(), 'M'.code.toByte(), 'P'.code.toByte(),
            'Y'.code.toByte(), 1, 0, 118, 0)
        SegmentDescriptor.hasSegmentMark(numpy) shouldBe false
        SegmentDescriptor.hasSegmentMark(numpy.copyOf(6)) shouldBe false
        SegmentDescriptor.hasSegmentMark(ByteArray(10)) shouldBe false
    }
})
