package dev.sharedarrays.internal.segment

import dev.sharedarrays.internal.segment.SegmentDescriptor as S
import dev.sharedarrays.internal.sync.BarrierDescriptor as B
import dev.sharedarrays.internal.sync.ChangeDescriptor
import dev.sharedarrays.internal.sync.LockDescriptor
import dev.sharedarrays.internal.sync.PoolDescriptor
import dev.sharedarrays.internal.sync.QueueDescriptor as Q
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.shouldBe

/** One field of a layout: bytes [offset, offset + size). */
private data class Region(val name: String, val offset: Long, val size: Long) {
    val end get() = offset + size
}

/** A block of [size] bytes and the fields the descriptor places in it. */
private data class Table(val name: String, val size: Long, val regions: List<Region>)

/**
 * Every way [table] contradicts itself: two fields sharing a byte, a field outside its block,
 * a field not aligned to its own size (at most 8, the widest atomic access).
 */
private fun problems(table: Table): List<String> {
    val out = mutableListOf<String>()
    for (r in table.regions) {
        if (r.offset < 0 || r.end > table.size) {
            out += "${r.name} [${r.offset}, ${r.end}) is outside ${table.name} [0, ${table.size})"
        }
        if (r.offset % minOf(r.size, 8L) != 0L) {
            out += "${r.name} at ${r.offset} is not aligned to ${minOf(r.size, 8L)}"
        }
    }
    val sorted = table.regions.sortedBy { it.offset }
    for (i in sorted.indices) {
        for (j in i + 1 until sorted.size) {
            val a = sorted[i]
            val b = sorted[j]
            if (b.offset < a.end && a.offset < b.end) {
                out += "${a.name} [${a.offset}, ${a.end}) overlaps ${b.name} [${b.offset}, ${b.end})"
            }
        }
    }
    return out
}

private const val U32 = 4L
private const val U64 = 8L

private val controlBlock = Table(
    "control block", S.CONTROL_SIZE.toLong(), listOf(
        Region("magic", S.MAGIC_OFFSET, U64),
        Region("version", S.VERSION_OFFSET, U32),
        Region("ready", S.READY_OFFSET, U32),
        Region("dtype", S.DTYPE_OFFSET, U32),
        Region("ndim", S.NDIM_OFFSET, U32),
        Region("shape", S.SHAPE_OFFSET, U64 * S.MAX_DIMS),
        Region("data offset", S.DATA_OFFSET_OFFSET, U64),
        Region("data length", S.DATA_LENGTH_OFFSET, U64),
        Region("array id", S.ID_OFFSET, U64),
        Region("creator pid", S.CREATOR_PID_OFFSET, U64),
        Region("creator start", S.CREATOR_START_OFFSET, U64),
        Region("created", S.CREATED_OFFSET, U64),
        Region("flags", S.FLAGS_OFFSET, U64),
        Region("crc32c", S.CRC_OFFSET, U32),
        Region("op counter", S.OP_COUNTER_OFFSET, U64),
        Region("writer", S.WRITER_OFFSET, U64),
        Region("writer seq", S.WRITER_SEQ_OFFSET, U32),
        Region("reader seq", S.READER_SEQ_OFFSET, U32),
        Region("writer waiters", S.WRITER_WAITERS_OFFSET, U32),
        Region("reader waiters", S.READER_WAITERS_OFFSET, U32),
        Region("recoveries", S.RECOVERIES_OFFSET, U64),
        Region("last dead", S.LAST_DEAD_OFFSET, U64),
        Region("reader slots", S.READER_SLOTS_OFFSET, S.SLOT_SIZE.toLong() * S.READER_SLOTS),
        Region("attach slots", S.ATTACH_SLOTS_OFFSET, S.SLOT_SIZE.toLong() * S.ATTACH_SLOTS),
        Region("change count", S.CHANGE_COUNT_OFFSET, U64),
        Region("change waiters", S.CHANGE_WAITERS_OFFSET, U32),
        Region("pool magic", S.POOL_MAGIC_OFFSET, U64),
        Region("pool slots", S.POOL_SLOTS_OFFSET, U32),
        Region("pool seq", S.POOL_SEQ_OFFSET, U32),
        Region("pool waiters", S.POOL_WAITERS_OFFSET, U32),
        Region("pool owners", S.POOL_OWNERS_OFFSET, U64 * S.POOL_MAX_SLOTS),
    )
)

private val queueHeader = Table(
    "queue header (before CELLS_OFFSET)", Q.CELLS_OFFSET, listOf(
        Region("magic", Q.MAGIC_OFFSET, U64),
        Region("capacity", Q.CAPACITY_OFFSET, U64),
        Region("mutex", Q.MUTEX_OFFSET, 16),
        Region("head", Q.HEAD_OFFSET, U64),
        Region("tail", Q.TAIL_OFFSET, U64),
        Region("put seq", Q.PUT_SEQ_OFFSET, U32),
        Region("put waiters", Q.PUT_WAITERS_OFFSET, U32),
        Region("take seq", Q.TAKE_SEQ_OFFSET, U32),
        Region("take waiters", Q.TAKE_WAITERS_OFFSET, U32),
        Region("ended", Q.ENDED_OFFSET, U64),
        Region("tag", Q.TAG_OFFSET, U64),
        Region("dropped", Q.DROPPED_OFFSET, U64),
        Region("producers", Q.PRODUCERS_OFFSET, U64 * Q.MAX_PEERS),
        Region("consumers", Q.CONSUMERS_OFFSET, U64 * Q.MAX_PEERS),
    )
)

private val queueCell = Table(
    "queue cell (CELL_SIZE)", Q.CELL_SIZE.toLong(), listOf(
        Region("position", Q.CELL_POSITION, U64),
        Region("kind", Q.CELL_KIND, U32),
        Region("ndim", Q.CELL_NDIM, U32),
        Region("array id", Q.CELL_ID, U64),
        Region("slot index", Q.CELL_INDEX, U64),
        Region("dtype", Q.CELL_DTYPE, U32),
        Region("handle length", Q.CELL_HANDLE_LENGTH, U32),
        Region("shape", Q.CELL_SHAPE, U64 * S.MAX_DIMS),
        Region("strides", Q.CELL_STRIDES, U64 * S.MAX_DIMS),
        Region("sender", Q.CELL_SENDER, U64),
        Region("handle", Q.CELL_HANDLE, Q.MAX_HANDLE_BYTES.toLong()),
    )
)

private val barrierWords = Table(
    "barrier words (before SLOTS_OFFSET)", B.SLOTS_OFFSET, listOf(
        Region("magic", B.MAGIC_OFFSET, U64),
        Region("parties", B.PARTIES_OFFSET, U64),
        Region("generation", B.GENERATION_OFFSET, U32),
        Region("waiters", B.WAITERS_OFFSET, U32),
        Region("arrived", B.ARRIVED_OFFSET, U64),
        Region("broken reason", B.BROKEN_REASON_OFFSET, U64),
        Region("broken by", B.BROKEN_BY_OFFSET, U64),
        Region("broken generation", B.BROKEN_GENERATION_OFFSET, U64),
    )
)

/** The descriptors' tables contradict neither themselves nor their blocks. */
class DescriptorLayoutTest : FunSpec({
    context("no two fields overlap and each fits its block") {
        withData(listOf(controlBlock, queueHeader, queueCell, barrierWords).associateBy { it.name }) { table ->
            problems(table).shouldBeEmpty()
        }
    }

    test("the parts of the control block that internal.sync describes abut the segment's own fields") {
        S.OP_COUNTER_OFFSET + U64 shouldBe LockDescriptor.FIRST_OFFSET
        S.ATTACH_SLOTS_OFFSET shouldBe LockDescriptor.END_OFFSET
        S.ATTACH_SLOTS_END shouldBe ChangeDescriptor.FIRST_OFFSET
        ChangeDescriptor.END_OFFSET shouldBe PoolDescriptor.FIRST_OFFSET
        (PoolDescriptor.END_OFFSET <= S.CONTROL_SIZE) shouldBe true
    }

    test("the crc covers every byte before it") {
        S.CRC_COVERED.toLong() shouldBe S.CRC_OFFSET
    }

    test("the handle fills a cell to its end") {
        Q.CELL_HANDLE + Q.MAX_HANDLE_BYTES shouldBe Q.CELL_SIZE.toLong()
    }

    test("the check fails on a table that contradicts itself") {
        val bad = Table(
            "bad", 32, listOf(
                Region("a", 0, U64),
                Region("b", 4, U64),
                Region("c", 28, U64),
                Region("d", 18, U32),
            )
        )
        // per-field problems in table order, then overlaps in offset order
        problems(bad) shouldBe listOf(
            "b at 4 is not aligned to 8",
            "c [28, 36) is outside bad [0, 32)",
            "c at 28 is not aligned to 8",
            "d at 18 is not aligned to 4",
            "a [0, 8) overlaps b [4, 12)",
        )
    }
})
