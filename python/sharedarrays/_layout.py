"""The shared bytes, as constants named exactly as the Java classes name them.

One class per Java descriptor class (dev.sharedarrays.internal.segment.SegmentDescriptor,
internal.sync.QueueDescriptor, internal.sync.BarrierDescriptor, internal.sync.PoolProtocol), with every public static final
constant at the same value; docs/PROTOCOL.md describes each word. Offsets in SegmentDescriptor are
from the start of the control block (file size - CONTROL_SIZE); those of QueueDescriptor and
BarrierDescriptor are from the start of the data of the I64 array that holds the queue or barrier.
Negative Java longs (LEFT) keep their signed value here; store them masked to 64 bits.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class SegmentDescriptor:
    """A segment: .npy header page, data, then a 4096-byte control block (see the Java class's diagram)."""

    PAGE = 4096
    DATA_OFFSET = PAGE
    CONTROL_SIZE = PAGE
    MAX_DATA_BYTES = 1 << 40  # 1 TiB
    MAX_DIMS = 8

    MAGIC = 0x0052524152414853  # "SHARARR\0" little-endian
    VERSION = 1
    READY = 0x52454459

    MAGIC_OFFSET = 0
    VERSION_OFFSET = 8
    READY_OFFSET = 12
    DTYPE_OFFSET = 16
    NDIM_OFFSET = 20
    SHAPE_OFFSET = 24
    DATA_OFFSET_OFFSET = 88
    DATA_LENGTH_OFFSET = 96
    ID_OFFSET = 104
    CREATOR_PID_OFFSET = 112
    CREATOR_START_OFFSET = 120
    CREATED_OFFSET = 128
    FLAGS_OFFSET = 136
    CRC_OFFSET = 144
    CRC_COVERED = 144
    OP_COUNTER_OFFSET = 152
    WRITER_OFFSET = 160
    WRITER_SEQ_OFFSET = 168
    READER_SEQ_OFFSET = 172
    WRITER_WAITERS_OFFSET = 176
    READER_WAITERS_OFFSET = 180
    RECOVERIES_OFFSET = 184
    LAST_DEAD_OFFSET = 192
    READER_SLOTS_OFFSET = 288
    READER_SLOTS = 32
    ATTACH_SLOTS_OFFSET = 800
    ATTACH_SLOTS = 64
    SLOT_SIZE = 16
    CHANGE_COUNT_OFFSET = 1824
    CHANGE_WAITERS_OFFSET = 1832
    POOL_MAGIC_OFFSET = 1840
    POOL_SLOTS_OFFSET = 1848
    POOL_SEQ_OFFSET = 1852
    POOL_WAITERS_OFFSET = 1856
    POOL_OWNERS_OFFSET = 1920
    POOL_MAX_SLOTS = 256
    POOL_MAGIC = 0x01004C4F4F504153  # "SAPOOL\0\1" little-endian

    FLAG_PERSISTENT = 1
    FLAG_SHARED = 2

    MARK_LENGTH = 10


class QueueDescriptor:
    """The words of an ArrayQueue, in the data of an I64 segment."""

    MAGIC = 0x0145554555514153  # "SAQUEUE\1" little-endian
    MAX_CAPACITY = 65536
    MAX_PEERS = 64
    MAGIC_OFFSET = 0
    CAPACITY_OFFSET = 8
    MUTEX_OFFSET = 16
    HEAD_OFFSET = 32
    TAIL_OFFSET = 40
    PUT_SEQ_OFFSET = 48
    PUT_WAITERS_OFFSET = 52
    TAKE_SEQ_OFFSET = 56
    TAKE_WAITERS_OFFSET = 60
    ENDED_OFFSET = 64
    TAG_OFFSET = 72
    DROPPED_OFFSET = 80
    PRODUCERS_OFFSET = 128
    CONSUMERS_OFFSET = 640
    CELLS_OFFSET = 1152
    CELL_SIZE = 512

    CELL_POSITION = 0
    CELL_KIND = 8
    CELL_NDIM = 12
    CELL_ID = 16
    CELL_INDEX = 24
    CELL_DTYPE = 32
    CELL_HANDLE_LENGTH = 36
    CELL_SHAPE = 40
    CELL_STRIDES = 104
    CELL_SENDER = 168
    CELL_HANDLE = 192
    MAX_HANDLE_BYTES = CELL_SIZE - CELL_HANDLE

    LEFT = -(1 << 63)  # Long.MIN_VALUE: bit 63, set once a producer or consumer closed


class BarrierDescriptor:
    """The words of a SharedBarrier, in the data of an I64 segment."""

    MAGIC = 0x0100525241424153  # "SABARR\0\1" little-endian
    MAX_PARTIES = 4096
    MAGIC_OFFSET = 0
    PARTIES_OFFSET = 8
    GENERATION_OFFSET = 16
    WAITERS_OFFSET = 20
    ARRIVED_OFFSET = 24
    BROKEN_REASON_OFFSET = 32
    BROKEN_BY_OFFSET = 40
    BROKEN_GENERATION_OFFSET = 48
    SLOTS_OFFSET = 64
    SLOT_SIZE = 16
    LEFT = -(1 << 63)  # Long.MIN_VALUE: bit 63, set in a party slot whose instance closed


class PoolProtocol:
    """The owner words of a pool's slots (in SegmentDescriptor's POOL_OWNERS_OFFSET): 0, an ident, or in flight."""

    IN_QUEUE = -(1 << 63)  # Long.MIN_VALUE: bit 63, the slot is in flight in a queue


class ElementType(NamedTuple):
    """A row of internal/kernel/ElementType.java: the code stored in the control block never changes."""

    name: str
    code: int
    descr: str
    kind: str
    item_size: int


ELEMENT_TYPES: tuple[ElementType, ...] = (
    ElementType("F64", 1, "<f8", "f", 8),
    ElementType("F32", 2, "<f4", "f", 4),
    ElementType("I64", 3, "<i8", "i", 8),
    ElementType("I32", 4, "<i4", "i", 4),
    ElementType("I16", 5, "<i2", "i", 2),
    ElementType("I8", 6, "|i1", "i", 1),
    ElementType("U64", 7, "<u8", "u", 8),
    ElementType("U32", 8, "<u4", "u", 4),
    ElementType("U16", 9, "<u2", "u", 2),
    ElementType("U8", 10, "|u1", "u", 1),
    ElementType("BOOL", 11, "|b1", "b", 1),
)

BY_CODE = {t.code: t for t in ELEMENT_TYPES}
BY_DESCR = {t.descr: t for t in ELEMENT_TYPES}

# Backend ordinals of dev.sharedarrays.Backend, stored in bits 8-15 of the flags word.
BACKEND_ORDINALS = {"shm": 0, "memfd": 1, "file": 2, "anonymous": 3}

MASK64 = (1 << 64) - 1
NPY_MAGIC = b"\x93NUMPY\x01\x00"


def data_length(shape: tuple[int, ...], item_size: int) -> int:
    """Bytes of data for a shape, or -1 if a dimension is below 1 or it exceeds MAX_DATA_BYTES."""
    n = item_size
    for d in shape:
        if d < 1:
            return -1
        n *= d
        if n > SegmentDescriptor.MAX_DATA_BYTES:
            return -1
    return n


def control_offset(data_len: int) -> int:
    p = SegmentDescriptor.PAGE
    return (SegmentDescriptor.DATA_OFFSET + data_len + p - 1) // p * p


def file_size(data_len: int) -> int:
    return control_offset(data_len) + SegmentDescriptor.CONTROL_SIZE


def npy_dict(descr: str, shape: tuple[int, ...]) -> str:
    """The header dict exactly as NpyHeader.dict writes it."""
    dims = ", ".join(str(d) for d in shape)
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + (",), }" if len(shape) == 1 else "), }")


def npy_prefix(descr: str, shape: tuple[int, ...]) -> bytes:
    header_len = SegmentDescriptor.DATA_OFFSET - 10
    return NPY_MAGIC + header_len.to_bytes(2, "little") + npy_dict(descr, shape).encode("ascii")


def npy_header(descr: str, shape: tuple[int, ...]) -> bytes:
    """The 4096 bytes a segment starts with: prefix, spaces, '\\n' at byte 4095."""
    prefix = npy_prefix(descr, shape)
    return prefix + b" " * (SegmentDescriptor.DATA_OFFSET - 1 - len(prefix)) + b"\n"


_HEADER_DICT = re.compile(rb"\{'descr': '([<|][a-z][0-9])', 'fortran_order': False, 'shape': \(([0-9, ]{1,200})\), \}")


def is_header_page(page: bytes) -> bool:
    """SegmentDescriptor.isHeaderPage: page (a file's first DATA_OFFSET bytes) is exactly a header page a
    create writes: one element type's descr, a shape of 1 to 8 dimensions, written as npy_header writes it."""
    if len(page) != SegmentDescriptor.DATA_OFFSET:
        return False
    m = _HEADER_DICT.match(page, SegmentDescriptor.MARK_LENGTH)
    if m is None or m.group(1).decode() not in BY_DESCR:
        return False
    dims = m.group(2).split(b",")
    if dims[-1] == b"":
        dims = dims[:-1]  # "(5,)" is 1-d
    if not 1 <= len(dims) <= SegmentDescriptor.MAX_DIMS:
        return False
    try:
        shape = tuple(int(d.strip()) for d in dims)
    except ValueError:
        return False
    # written again and compared: "05", a missing space or other padding is not ours
    return min(shape) >= 1 and page == npy_header(m.group(1).decode(), shape)


def _crc32c_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def control_crc(control: bytes) -> int:
    """ControlBlock.crc: CRC32C of bytes 0..CRC_COVERED with the ready word read as 0."""
    covered = bytearray(control[: SegmentDescriptor.CRC_COVERED])
    r = SegmentDescriptor.READY_OFFSET
    covered[r : r + 4] = b"\0\0\0\0"
    return crc32c(bytes(covered))
