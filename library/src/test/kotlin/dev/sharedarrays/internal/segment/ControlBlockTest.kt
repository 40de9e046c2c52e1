package dev.sharedarrays.internal.segment

import dev.sharedarrays.Backend
import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I16
import dev.sharedarrays.InvalidSegmentException
import dev.sharedarrays.SharedArrayException
import dev.sharedarrays.U8
import dev.sharedarrays.internal.kernel.ShapeLimits
import dev.sharedarrays.internal.os.Proc
import dev.sharedarrays.internal.segment.SegmentDescriptor.ATTACH_SLOTS
import dev.sharedarrays.internal.segment.SegmentDescriptor.ATTACH_SLOTS_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.CONTROL_SIZE
import dev.sharedarrays.internal.segment.SegmentDescriptor.CRC_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.DATA_LENGTH_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.DATA_OFFSET_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.DTYPE_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.MAGIC_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.NDIM_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.READY_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.SHAPE_OFFSET
import dev.sharedarrays.internal.segment.SegmentDescriptor.SLOT_SIZE
import dev.sharedarrays.internal.segment.SegmentDescriptor.VERSION_OFFSET
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldContainExactly
import io.kotest.matchers.longs.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldEndWith
import io.kotest.matchers.string.shouldStartWith
import io.kotest.property.Arb
import io.kotest.property.arbitrary.long
import io.kotest.property.checkAll
import java.lang.foreign.Arena
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.JAVA_BYTE
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG

/** The control block on its own: what initialize writes, validate reads back, and what it refuses. */
class ControlBlockTest : FunSpec({
    val where = "test-segment"
    val prefix = "$where is not a valid shared-arrays segment: "

    /** A segment in fresh memory, initialized with these facts; the control block is its last page. */
    class Mapped(val facts: SegmentFacts, arena: Arena) {
        val size = facts.fileSize()
        val all: MemorySegment = arena.allocate(size, SegmentDescriptor.PAGE.toLong())
        val control: MemorySegment = all.asSlice(size - CONTROL_SIZE, CONTROL_SIZE.toLong())

        init {
            ControlBlock.initialize(all, control, facts)
        }

        fun validate(fileSize: Long = size): SegmentFacts = ControlBlock.validate(all, control, fileSize, where)

        /** Recomputes the checksum, so that the checks behind it see the change. */
        fun fixCrc() = control.set(JAVA_INT, CRC_OFFSET, ControlBlock.crc(control))
    }

    fun facts(dtype: DType<*>, vararg shape: Long, id: Long = 0x0123456789abcdefL, pid: Long = 4242, start: Long = 777,
              created: Long = 1_700_000_000_123, persistent: Boolean = false, backend: Backend = Backend.SHM) =
        SegmentFacts(dtype, shape, ShapeLimits.dataLength(shape, dtype.itemSize()), id, pid, start, created,
            SegmentFacts.flags(persistent, backend))

    fun SegmentFacts.shouldMatch(expected: SegmentFacts) {
        dtype() shouldBe expected.dtype()
        shape().toList() shouldBe expected.shape().toList()
        dataLength() shouldBe expected.dataLength()
        id() shouldBe expected.id()
        creatorPid() shouldBe expected.creatorPid()
        creatorStart() shouldBe expected.creatorStart()
        createdMillis() shouldBe expected.createdMillis()
        flags() shouldBe expected.flags()
        persistent() shouldBe expected.persistent()
        backend() shouldBe expected.backend()
    }

    context("initialize then validate gives back every field") {
        withData(
            nameFn = { "${it.dtype()} ${it.shape().toList()} ${it.backend()}${if (it.persistent()) " persistent" else ""}" },
            facts(F64.TYPE, 2, 3),
            facts(U8.TYPE, 1, backend = Backend.MEMFD),
            facts(I16.TYPE, 3, 5, persistent = true, backend = Backend.FILE),
            facts(F32.TYPE, 1, 2, 1, 2, 1, 2, 1, 2, backend = Backend.ANONYMOUS),
            facts(U8.TYPE, 4097, id = -1, pid = Long.MAX_VALUE, start = 0, created = 0),
        ) { f ->
            Arena.ofShared().use { arena ->
                val m = Mapped(f, arena)
                m.validate().shouldMatch(f)
                m.all.asSlice(0, SegmentDescriptor.DATA_OFFSET).toArray(JAVA_BYTE) shouldBe
                    SegmentDescriptor.npyHeader(f.dtype().descr(), f.shape())
                m.control.get(JAVA_INT, READY_OFFSET) shouldBe SegmentDescriptor.READY
            }
        }
    }

    // a file create writes the header page first (sweep's sign of a segment in the making), then initialize
    // writes it again through the mapping: a create killed in the middle of that must leave a header page
    test("initialize over a header page never leaves it anything but that header page, as another thread sees it") {
        Arena.ofShared().use { arena ->
            val f = facts(F64.TYPE, 1000)
            val m = Mapped(f, arena)
            val expected = SegmentDescriptor.npyHeader(f.dtype().descr(), f.shape())
            val stop = java.util.concurrent.atomic.AtomicBoolean()
            val seen = java.util.concurrent.atomic.AtomicReference<String>()
            val reads = java.util.concurrent.atomic.AtomicLong()
            val watcher = Thread {
                // the mark and the dict's start are what a rewrite in two steps overwrote with spaces
                val head = ByteArray(64)
                val expectedHead = expected.copyOf(head.size)
                while (!stop.get() && seen.get() == null) {
                    MemorySegment.copy(m.all, JAVA_BYTE, 0, head, 0, head.size)
                    if (!head.contentEquals(expectedHead)) seen.set(head.decodeToString())
                    reads.incrementAndGet()
                }
            }
            watcher.start()
            try {
                // 300 ms and 1000 reads at least (a watcher that starts late on a busy machine gets its reads), 10 s at most
                val start = System.nanoTime()
                var writes = 0
                while (seen.get() == null && (System.nanoTime() - start < 300_000_000L || reads.get() <= 1000L) &&
                    System.nanoTime() - start < 10_000_000_000L) {
                    ControlBlock.initialize(m.all, m.control, f)
                    writes++
                }
                stop.set(true)
                watcher.join(10_000)
                withClue("after $writes initializations and ${reads.get()} reads") {
                    seen.get() shouldBe null
                    reads.get() shouldBeGreaterThan 1000L
                }
            } finally {
                stop.set(true)
                watcher.join(10_000)
            }
            SegmentDescriptor.isHeaderPage(m.all.asSlice(0, SegmentDescriptor.DATA_OFFSET).toArray(JAVA_BYTE)) shouldBe true
        }
    }

    test("ids, processes and times of any value survive the round trip") {
        Arena.ofShared().use { arena ->
            checkAll(200, Arb.long(), Arb.long(), Arb.long(), Arb.long()) { id, pid, start, created ->
                val f = facts(F64.TYPE, 7, id = id, pid = pid, start = start, created = created)
                Mapped(f, arena).validate().shouldMatch(f)
            }
        }
    }

    context("each corruption is an InvalidSegmentException naming the mismatch") {
        data class Corruption(val fileSizeDelta: Long = 0, val fixCrc: Boolean = true, val change: (MemorySegment) -> Unit, val why: String)

        // I16 [3, 5]: 30 bytes of data, control block at 8192, file 12288 bytes
        withData(
            mapOf(
                "bad magic" to Corruption(fixCrc = false, change = { it.set(JAVA_LONG, MAGIC_OFFSET, 7L) },
                    why = "no shared-arrays control block at offset 8192 (magic 0x7, expected 0x52524152414853)"),
                "bad version" to Corruption(change = { it.set(JAVA_INT, VERSION_OFFSET, 2) },
                    why = "format version 2, this library reads version 1"),
                "ready word unset" to Corruption(fixCrc = false, change = { it.set(JAVA_INT, READY_OFFSET, 0) },
                    why = "segment is not ready (ready word 0x0): its creator has not finished or died while creating it"),
                "dtype code unknown" to Corruption(change = { it.set(JAVA_INT, DTYPE_OFFSET, 99) },
                    why = DTypeMessage.unknown(99)),
                "ndim above 8" to Corruption(change = { it.set(JAVA_INT, NDIM_OFFSET, 9) }, why = "ndim 9 is outside 1..8"),
                "ndim 0" to Corruption(change = { it.set(JAVA_INT, NDIM_OFFSET, 0) }, why = "ndim 0 is outside 1..8"),
                "a dimension 0" to Corruption(change = { it.set(JAVA_LONG, SHAPE_OFFSET + 8, 0L) },
                    why = "shape[1] is 0, must be >= 1"),
                "a dimension beyond ndim" to Corruption(change = { it.set(JAVA_LONG, SHAPE_OFFSET + 16, 5L) },
                    why = "shape[2] is 5 beyond ndim 2"),
                "a shape beyond 1 TiB" to Corruption(change = { it.set(JAVA_LONG, SHAPE_OFFSET, 1L shl 62) },
                    why = "shape [4611686018427387904, 5] of I16 overflows or exceeds 1 TiB"),
                "data offset moved" to Corruption(change = { it.set(JAVA_LONG, DATA_OFFSET_OFFSET, 0L) },
                    why = "data offset 0, expected 4096"),
                "data length disagrees with the shape" to Corruption(change = { it.set(JAVA_LONG, DATA_LENGTH_OFFSET, 31L) },
                    why = "data length 31 does not match shape [3, 5] of I16 (30 bytes)"),
                "shape and length agree, the file size does not" to Corruption(
                    change = { it.set(JAVA_LONG, SHAPE_OFFSET + 8, 2000L); it.set(JAVA_LONG, DATA_LENGTH_OFFSET, 12000L) },
                    why = "file is 12288 bytes, but shape [3, 2000] of I16 needs 20480"),
                "a page more than the shape needs" to Corruption(fileSizeDelta = 4096, change = {},
                    why = "file is 16384 bytes, but shape [3, 5] of I16 needs 12288"),
                "file smaller than any segment" to Corruption(fileSizeDelta = 100 - 12288, change = {},
                    why = "file is 100 bytes, smaller than the smallest segment (12288 bytes)"),
                "file not whole pages" to Corruption(fileSizeDelta = 1, change = {},
                    why = "file size 12289 is not a multiple of 4096"),
            ),
        ) { c ->
            Arena.ofShared().use { arena ->
                val m = Mapped(facts(I16.TYPE, 3, 5), arena)
                c.change(m.control)
                if (c.fixCrc) m.fixCrc()
                shouldThrow<InvalidSegmentException> { m.validate(m.size + c.fileSizeDelta) }.message shouldBe prefix + c.why
            }
        }
    }

    test("a changed field under an unchanged checksum is a checksum mismatch") {
        Arena.ofShared().use { arena ->
            val m = Mapped(facts(I16.TYPE, 3, 5), arena)
            m.control.set(JAVA_INT, NDIM_OFFSET, 1)
            val message = shouldThrow<InvalidSegmentException> { m.validate() }.message!!
            message shouldStartWith prefix + "control block checksum mismatch (stored 0x"
            message shouldEndWith "): the control block was overwritten"
        }
    }

    test("a header that disagrees with the control block") {
        Arena.ofShared().use { arena ->
            val m = Mapped(facts(I16.TYPE, 3, 5), arena)
            m.all.set(JAVA_BYTE, 20, 'X'.code.toByte())
            shouldThrow<InvalidSegmentException> { m.validate() }.message shouldBe
                prefix + ".npy header does not match the control block (expected <i2 [3, 5])"
        }
    }

    context("attach slots") {
        val me = Proc.selfPid()
        val myStart = Proc.selfStartTime()
        fun slotOffset(i: Int) = ATTACH_SLOTS_OFFSET + SLOT_SIZE.toLong() * i
        fun fill(control: MemorySegment, pid: Long, start: Long) = repeat(ATTACH_SLOTS) { i ->
            control.set(JAVA_LONG, slotOffset(i), pid)
            control.set(JAVA_LONG, slotOffset(i) + 8, start)
        }

        test("register takes the first free slot and release frees it for the next") {
            Arena.ofShared().use { arena ->
                val c = Mapped(facts(F64.TYPE, 4), arena).control
                ControlBlock.attached(c).shouldBeEmpty()
                ControlBlock.registerAttach(c, where) shouldBe 0
                ControlBlock.registerAttach(c, where) shouldBe 1
                ControlBlock.attached(c) shouldContainExactly listOf(ControlBlock.Slot(0, me, myStart), ControlBlock.Slot(1, me, myStart))
                ControlBlock.releaseAttach(c, 0)
                ControlBlock.attached(c) shouldContainExactly listOf(ControlBlock.Slot(1, me, myStart))
                c.get(JAVA_LONG, slotOffset(0) + 8) shouldBe 0L
                ControlBlock.registerAttach(c, where) shouldBe 0
            }
        }

        test("release leaves a slot alone that another process holds") {
            Arena.ofShared().use { arena ->
                val c = Mapped(facts(F64.TYPE, 4), arena).control
                c.set(JAVA_LONG, slotOffset(3), 1L)
                c.set(JAVA_LONG, slotOffset(3) + 8, 5L)
                ControlBlock.releaseAttach(c, 3)
                ControlBlock.attached(c) shouldContainExactly listOf(ControlBlock.Slot(3, 1, 5))
            }
        }

        test("when every slot is taken, a dead process's slot is reused") {
            Arena.ofShared().use { arena ->
                val c = Mapped(facts(F64.TYPE, 4), arena).control
                fill(c, me, myStart + 1) // this pid with another start time: a process that died
                ControlBlock.registerAttach(c, where) shouldBe 0
                ControlBlock.attached(c).first() shouldBe ControlBlock.Slot(0, me, myStart)
            }
        }

        test("when every slot belongs to a live process, register fails and says what to do") {
            Arena.ofShared().use { arena ->
                val c = Mapped(facts(F64.TYPE, 4), arena).control
                fill(c, me, myStart)
                shouldThrow<SharedArrayException> { ControlBlock.registerAttach(c, where) }.message shouldBe
                    "cannot attach $where: all 64 attach slots are held by live processes; close some attachments first"
            }
        }
    }
})

/** The element-type table's own message for an unknown code, so this test does not restate it. */
private object DTypeMessage {
    fun unknown(code: Int): String = try {
        DType.ofCode(code)
        error("code $code is known")
    } catch (e: IllegalArgumentException) {
        e.message!!
    }
}
