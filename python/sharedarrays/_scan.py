"""ls: our segments in the shm directory and the default file directory, read without attaching (SegmentScan.java)."""

from __future__ import annotations

import datetime
import os
import struct
from typing import NamedTuple

from . import _proc, _segment
from ._handle import Handle, validate_name
from ._layout import BarrierDescriptor, QueueDescriptor
from ._layout import SegmentDescriptor as D


class Participant(NamedTuple):
    """A process recorded in a segment, and whether it was alive when read."""

    pid: int
    start_time: int
    alive: bool


class SegmentInfo(NamedTuple):
    """What a segment's control block says (Java's SegmentInfo); a snapshot."""

    path: str
    handle: str
    dtype: str
    shape: tuple
    bytes: int
    id: int
    creator: Participant
    attached: list
    lifetime: str
    backend: str
    created: datetime.datetime
    kind: str  # "array", "pool", "queue" or "barrier"


def _files(d: str) -> list[str]:
    try:
        names = sorted(os.listdir(d))
    except FileNotFoundError:
        return []
    return [os.path.join(d, n) for n in names if not n.startswith(_segment.TEMP_PREFIX)]


def read(p: str) -> SegmentInfo:
    """The segment at p, opened read-only with the attach checks; InvalidSegmentError if it is not ours."""
    fd = _segment.open_checked(p, "list", read_write=False)
    try:
        size = os.fstat(fd).st_size
        header, control = _segment.read_pages(fd, size, p)
        f = _segment.validate(header, control, size, p)
        head = os.pread(fd, 8, D.DATA_OFFSET)
    finally:
        os.close(fd)
    name = os.path.basename(p)
    try:
        valid = f.backend != "file" and validate_name(name) == name
    except ValueError:
        valid = False
    handle = Handle("shm", name=name, id=f.id) if valid else Handle("file", path=p, id=f.id)
    attached = []
    for i in range(D.ATTACH_SLOTS):
        pid, start = struct.unpack_from("<QQ", control, D.ATTACH_SLOTS_OFFSET + D.SLOT_SIZE * i)
        if pid:
            attached.append(Participant(pid, start, _proc.is_alive(pid, start)))
    (magic,) = struct.unpack_from("<Q", head.ljust(8, b"\0"))
    (pool,) = struct.unpack_from("<Q", control, D.POOL_MAGIC_OFFSET)
    kind = "pool" if pool == D.POOL_MAGIC else "array"
    if f.etype.name == "I64" and kind == "array":
        kind = {QueueDescriptor.MAGIC: "queue", BarrierDescriptor.MAGIC: "barrier"}.get(magic, "array")
    return SegmentInfo(p, str(handle), f.etype.descr, f.shape, f.data_length, f.id,
                       Participant(f.creator_pid, f.creator_start, _proc.is_alive(f.creator_pid, f.creator_start)), attached,
                       f.lifetime, f.backend, datetime.datetime.fromtimestamp(f.created_millis / 1000, datetime.timezone.utc), kind)


def ls() -> list[SegmentInfo]:
    """Our segments in the shm directory and the default file directory; anything else there is skipped."""
    dirs = []
    try:
        dirs.append(_segment.shm_directory())
    except Exception:
        pass
    fd = _segment.file_default_directory()
    if os.path.isdir(fd) and not os.path.islink(fd) and _segment.unsafe_directory(fd) is None:
        dirs.append(fd)
    out = []
    for d in dirs:
        for p in _files(d):
            try:
                out.append(read(p))
            except Exception:
                pass  # not ours, damaged or gone meanwhile: not listed, and never stops the listing
    return out
