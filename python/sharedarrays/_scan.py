"""ls: our segments in the shm directory and the default file directory, read without attaching (SegmentScan.java)."""

from __future__ import annotations

import datetime
import os
import struct
from typing import NamedTuple

from . import _proc, _segment
from ._dead_queue import damaged
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
    used: int = -1  # slots in use (pool), messages waiting (queue), parties waiting (barrier); -1 for arrays
    capacity: int = -1  # slots (pool), messages it holds at most (queue), parties (barrier); -1 for arrays

    @property
    def fill(self) -> str:
        """"array", or the kind with its fill level: "queue 3/64", "pool 14/16", "barrier 1/3" (Java's fill())."""
        return self.kind if self.kind == "array" else f"{self.kind} {self.used}/{self.capacity}"

    @property
    def in_use(self) -> bool:
        """True if the creator or an attached process is alive, as the records say (the kernel's flock decides)."""
        return self.creator.alive or any(p.alive for p in self.attached)


def _files(d: str) -> list[str]:
    try:
        names = sorted(os.listdir(d))
    except FileNotFoundError:
        return []
    return [os.path.join(d, n) for n in names if not n.startswith(_segment.TEMP_PREFIX)]


HEAD_BYTES = 128  # Occupancy.HEAD_BYTES: bytes of data that tell a queue or a barrier


def read(p: str) -> SegmentInfo:
    """The segment at p, opened read-only with the attach checks; InvalidSegmentError if it is not ours."""
    fd = _segment.open_checked(p, "list", read_write=False)
    try:
        return read_fd(fd, p)
    finally:
        os.close(fd)


def read_fd(fd: int, p: str) -> SegmentInfo:
    """The segment behind an opened descriptor (read with pread, never mapped), reported under path p."""
    size = os.fstat(fd).st_size
    header, control = _segment.read_pages(fd, size, p)
    f = _segment.validate(header, control, size, p)
    head = os.pread(fd, min(HEAD_BYTES, f.data_length), D.DATA_OFFSET)
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
    kind, used, capacity = occupancy(f.etype.name, f.shape, head, control)
    return SegmentInfo(p, str(handle), f.etype.descr, f.shape, f.data_length, f.id,
                       Participant(f.creator_pid, f.creator_start, _proc.is_alive(f.creator_pid, f.creator_start)), attached,
                       f.lifetime, f.backend, _created(f.created_millis), kind, used, capacity)


def _created(millis: int) -> datetime.datetime:
    """The creation time; one that datetime cannot hold (a word another process wrote) is clamped to its range, as Java's
    Instant holds it, so that ls and sweep still see the segment."""
    lo, hi = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc), datetime.datetime.max.replace(tzinfo=datetime.timezone.utc)
    try:
        return datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return hi if millis > 0 else lo


def pool_slots(control: bytes) -> int:
    """PoolProtocol.slots: the pool's slot count, or -1 if the control block holds no pool."""
    (magic,) = struct.unpack_from("<Q", control, D.POOL_MAGIC_OFFSET)
    if magic != D.POOL_MAGIC:
        return -1
    (n,) = struct.unpack_from("<i", control, D.POOL_SLOTS_OFFSET)
    return n if 1 <= n <= D.POOL_MAX_SLOTS else -1


def queue_capacity(head: bytes, elements: int) -> int:
    """QueueProtocol.capacity: the capacity of the queue in these I64 words, or -1 if they hold none."""
    Q = QueueDescriptor
    if elements < queue_words(1) or len(head) < 16:
        return -1
    magic, cap = struct.unpack_from("<QQ", head, Q.MAGIC_OFFSET)
    if magic != Q.MAGIC:
        return -1
    return cap if 1 <= cap <= Q.MAX_CAPACITY and elements == queue_words(cap) else -1


def queue_words(capacity: int) -> int:
    return (QueueDescriptor.CELLS_OFFSET + QueueDescriptor.CELL_SIZE * capacity) // 8


def occupancy(etype: str, shape: tuple, head: bytes, control: bytes) -> tuple[str, int, int]:
    """Occupancy.of: (kind, used, capacity); used and capacity are -1 for plain arrays."""
    slots = pool_slots(control)
    if slots > 0 and len(shape) >= 2 and shape[0] == slots:
        owners = struct.unpack_from(f"<{slots}Q", control, D.POOL_OWNERS_OFFSET)
        return "pool", sum(1 for o in owners if o != 0), slots
    if etype == "I64" and len(shape) == 1 and len(head) >= 64:
        cap = queue_capacity(head, shape[0])
        if cap > 0:
            h, t = struct.unpack_from("<QQ", head, QueueDescriptor.HEAD_OFFSET)
            return "queue", 0 if damaged(h, t, cap) else t - h, cap
        B = BarrierDescriptor
        magic, parties = struct.unpack_from("<Qq", head, B.MAGIC_OFFSET)
        if magic == B.MAGIC and 1 <= parties <= B.MAX_PARTIES and shape[0] == 8 + 2 * parties:
            (arrived,) = struct.unpack_from("<i", head, B.ARRIVED_OFFSET)  # Java: (int) of the u64 word
            return "barrier", arrived, parties
    return "array", -1, -1


def scan_directories() -> list[str]:
    """The shm directory (if there is one) and the file backend's default directory (if it exists and is safe)."""
    dirs = []
    try:
        dirs.append(_segment.shm_directory())
    except Exception:
        pass
    fd = _segment.file_default_directory()
    if os.path.isdir(fd) and not os.path.islink(fd) and _segment.unsafe_directory(fd) is None:
        dirs.append(fd)
    return dirs


def ls() -> list[SegmentInfo]:
    """Our segments in the shm directory and the default file directory; anything else there is skipped."""
    dirs = scan_directories()
    out = []
    for d in dirs:
        for p in _files(d):
            try:
                out.append(read(p))
            except Exception:
                pass  # not ours, damaged or gone meanwhile: not listed, and never stops the listing
    return out
