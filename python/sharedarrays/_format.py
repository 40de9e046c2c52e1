"""The segment file's format worked out from _layout's constants: sizes, the .npy header page and the
control block's CRC, as SegmentDescriptor, NpyHeader and ControlBlock compute them in Java."""

from __future__ import annotations

import re

from ._layout import BY_DESCR, SegmentDescriptor

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
