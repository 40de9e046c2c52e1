"""Segment files: exclusive create, trusted attach and the removal rules, as the Java library does them.

Create (internal/backend/SegmentFiles.createExclusive): a temporary file .sa-tmp-<pid>-<start>-<8 hex>
in the target's directory, O_CREAT|O_EXCL|O_NOFOLLOW mode 0600, flock(LOCK_SH) at once, the .npy
header page written first, posix_fallocate of the whole size, mapped, header and control block
written with the ready word last, linked to the final name, the temporary name unlinked. The
descriptor and its LOCK_SH stay for as long as the segment is open.

Attach (internal/segment/SegmentFile.open + ControlBlock.validate): O_NOFOLLOW|O_NONBLOCK, fstat
before a byte is read (a regular file of this user, fully allocated), flock(LOCK_SH), the path must
still name the file, then the control block is validated and an attach slot taken.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import secrets
import stat
import struct
import threading
import time
from typing import Callable, NamedTuple

from . import _lock, _native, _proc
from ._errors import (
    InsufficientSpaceError,
    InvalidSegmentError,
    SegmentExistsError,
    SegmentNotFoundError,
    SharedArraysError,
)
from ._format import control_crc, data_length, file_size, npy_header, npy_prefix
from ._futex import Words
from ._handle import Handle, parse as parse_handle, validate_name
from ._layout import BACKEND_ORDINALS, BY_CODE, ElementType
from ._layout import SegmentDescriptor as D

DIR_ENV = "SHARED_ARRAYS_DIR"
LIFETIMES = ("owner", "shared", "persistent")
TEMP_PREFIX = ".sa-tmp-"
_LOCK_WAIT_NS = 2_000_000_000
_ORDINAL_BACKENDS = {v: k for k, v in BACKEND_ORDINALS.items()}


class Facts(NamedTuple):
    """What a control block says (SegmentFacts.java)."""

    etype: ElementType
    shape: tuple[int, ...]
    data_length: int
    id: int
    creator_pid: int
    creator_start: int
    created_millis: int
    flags: int

    @property
    def lifetime(self) -> str:
        if self.flags & D.FLAG_PERSISTENT:
            return "persistent"
        return "shared" if self.flags & D.FLAG_SHARED else "owner"

    @property
    def backend(self) -> str:
        return _ORDINAL_BACKENDS.get((self.flags >> 8) & 0xFF, "shm")


def flags(lifetime: str, backend: str) -> int:
    life = {"owner": 0, "shared": D.FLAG_SHARED, "persistent": D.FLAG_PERSISTENT}[lifetime]
    return life | (BACKEND_ORDINALS[backend] << 8)


def new_facts(etype: ElementType, shape: tuple[int, ...], lifetime: str, backend: str) -> Facts:
    if not 1 <= len(shape) <= D.MAX_DIMS:
        raise ValueError(f"an array has 1 to {D.MAX_DIMS} dimensions, but shape {list(shape)} has {len(shape)}")
    for i, d in enumerate(shape):
        if d < 1:
            raise ValueError(f"shape[{i}] is {d}, every dimension must be >= 1")
    n = data_length(shape, etype.item_size)
    if n < 0:
        raise ValueError(f"shape {list(shape)} of {etype.descr} needs more than the limit of 1 TiB ({D.MAX_DATA_BYTES} bytes)")
    return Facts(etype, shape, n, secrets.randbits(64), _proc.self_pid(), _proc.self_start(), time.time_ns() // 1_000_000,
                 flags(lifetime, backend))


# ---------------------------------------------------------------- directories


def shm_directory() -> str:
    v = os.environ.get(DIR_ENV)
    d = v if v else "/dev/shm"
    if not os.path.isdir(d):
        raise SharedArraysError(f"{DIR_ENV + '=' + v if v else d} is not a directory; "
                                + ("point it at an existing directory" if v else f"set {DIR_ENV} to a tmpfs directory"))
    return d


def others_may_remove(d: str) -> str | None:
    try:
        st = os.stat(d)
    except OSError:
        return None
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o002 or mode & 0o1000:
        return None
    return (f"{d} has mode 0{mode:o}: every user may write to it and, without the sticky bit, delete or rename the arrays"
            " of others in it")


def file_default_directory() -> str:
    """Java's <java.io.tmpdir>/sharedarrays; java.io.tmpdir is /tmp on Linux unless a JVM is told otherwise."""
    return "/tmp/sharedarrays"


def unsafe_directory(d: str) -> str | None:
    try:
        st = os.lstat(d)
    except FileNotFoundError:
        return None
    fix = "; remove it (as its owner) so that it is created again with mode 0700, or give the array a path (path=)"
    if not stat.S_ISDIR(st.st_mode):
        return f"the default directory of file-backed arrays {d} is not a directory{fix}"
    if st.st_uid != os.geteuid():
        return (f"the default directory of file-backed arrays {d} belongs to uid {st.st_uid}, not to this user"
                f" (uid {os.geteuid()}): that user could replace the arrays in it{fix}")
    if st.st_mode & 0o022:
        return (f"the default directory of file-backed arrays {d} has mode 0{stat.S_IMODE(st.st_mode):o}: other users may"
                f" write to it and could replace the arrays in it{fix} (or chmod 700 it)")
    return None


def _usable_space(d: str) -> int:
    try:
        s = os.statvfs(d)
        return s.f_bavail * s.f_frsize
    except OSError:
        return -1


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _no_space(d: str, size: int, free: int, fix: str) -> InsufficientSpaceError:
    return InsufficientSpaceError(f"{d} has {_bytes(max(free, 0))} free, {_bytes(size)} requested; {fix}", size, free)


def _named_by(st: os.stat_result, path: str) -> bool:
    try:
        now = os.lstat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


# ---------------------------------------------------------------- the mapped segment


class Segment:
    """One process's open segment: descriptor (with its flock), mapping, facts, attach slot."""

    def __init__(self, facts: Facts, owner: bool, fd: int, mm: mmap.mmap, path: str | None, handle: Handle, slot: int) -> None:
        self.facts = facts
        self.owner = owner
        self.fd = fd
        self.mm = mm
        self.path = path
        self.handle = handle
        self.slot = slot
        self.stat = os.fstat(fd)
        self.size = len(mm)
        self.base = _native.address(mm)
        self.words = Words(self.base + self.size - D.CONTROL_SIZE)
        self.key = (self.stat.st_dev, self.stat.st_ino)
        self.lock = _lock.retain(self.key)
        self.closed = False
        self.pid = os.getpid()
        self._guard = threading.Lock()
        self._users = 0  # threads inside a lock or wait call: the mapping stays until they leave

    def enter(self) -> None:
        """Marks a thread as using the mapping (a lock or wait call); ValueError if closed."""
        with self._guard:
            if self.closed:
                raise ValueError(f"array {self.handle} is closed")
            self._users += 1

    def leave(self) -> None:
        with self._guard:
            self._users -= 1
            unmap = self.closed and self._users == 0
        if unmap:
            self._unmap()

    def _unmap(self) -> None:
        try:
            self.mm.close()
        except BufferError:
            pass  # numpy views of it remain (each holds an export): the mapping goes when the last of them does

    def close(self) -> None:
        """Detaches and removes the name as the lifetime says (Segment.close). Idempotent."""
        if self.closed:
            return
        if os.getpid() != self.pid:
            # a fork()ed child's copy: the name, the flock (one open file description) and the slot are the parent's
            self.release()
            return
        life = self.facts.lifetime
        if life == "owner" and self.owner:
            self._unlink_if_still_named()
        elif life == "shared" and self.path is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._unlink_if_still_named()
            except BlockingIOError:
                pass  # another process has it open: the last one out removes it
        self.release()

    def destroy(self) -> None:
        if not self.owner or os.getpid() != self.pid:
            raise RuntimeError(f"only the creator (pid {self.facts.creator_pid}) may destroy {self.handle}; "
                               "this process attached it: close() it instead")
        if not self.closed:
            self._unlink_if_still_named()
        self.release()

    def _unlink_if_still_named(self) -> None:
        if self.path is not None and _named_by(self.stat, self.path):
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def release(self) -> None:
        """Frees the attach slot, unmaps (once no numpy view is left) and closes the descriptor."""
        with self._guard:
            if self.closed:
                return
            self.closed = True
            busy = self._users > 0
        try:
            if self.slot >= 0 and os.fstat(self.fd).st_size >= self.size:  # a truncated file's slots are gone
                release_attach(self.words, self.slot)
        finally:
            _lock.release(self.key)
            try:
                if not busy:
                    self._unmap()
            finally:
                os.close(self.fd)  # the flock goes with the descriptor


# ---------------------------------------------------------------- control block


def write_control(mm: mmap.mmap, facts: Facts, init: Callable[[int, int], None] | None = None) -> None:
    """ControlBlock.initialize: header page, control fields, CRC, init(address, size) (a pool's, queue's or
    barrier's words, as Backends.create's initializer), then the ready word last."""
    size = len(mm)
    c = size - D.CONTROL_SIZE
    mm[0 : D.DATA_OFFSET] = npy_header(facts.etype.descr, facts.shape)
    struct.pack_into("<QI", mm, c + D.MAGIC_OFFSET, D.MAGIC, D.VERSION)
    struct.pack_into("<II", mm, c + D.DTYPE_OFFSET, facts.etype.code, len(facts.shape))
    struct.pack_into("<8Q", mm, c + D.SHAPE_OFFSET, *(list(facts.shape) + [0] * (D.MAX_DIMS - len(facts.shape))))
    struct.pack_into("<8Q", mm, c + D.DATA_OFFSET_OFFSET, D.DATA_OFFSET, facts.data_length, facts.id, facts.creator_pid,
                     facts.creator_start, facts.created_millis, facts.flags, 0)
    struct.pack_into("<I", mm, c + D.CRC_OFFSET, control_crc(mm[c : c + D.CRC_COVERED]))
    if init is not None:
        init(_native.address(mm), size)
    _native.store32(_native.address(mm) + c + D.READY_OFFSET, D.READY)  # seq-cst: at least a release store


def check_file_size(size: int, where: str) -> None:
    smallest = D.DATA_OFFSET + D.PAGE + D.CONTROL_SIZE
    if size < smallest:
        raise _invalid(where, f"file is {size} bytes, smaller than the smallest segment ({smallest} bytes)")
    if size % D.PAGE:
        raise _invalid(where, f"file size {size} is not a multiple of {D.PAGE}")


def _invalid(where: str, why: str) -> InvalidSegmentError:
    return InvalidSegmentError(f"{where} is not a valid shared-arrays segment: {why}")


def read_pages(fd: int, size: int, where: str) -> tuple[bytes, bytes]:
    """The header page and the control block, read with pread: a file shrunk meanwhile reads short, never a SIGBUS."""
    check_file_size(size, where)
    # the ready word first, in a read of its own: what the creator wrote before it is then in the reads after
    ready = os.pread(fd, 4, size - D.CONTROL_SIZE + D.READY_OFFSET)
    header = os.pread(fd, D.DATA_OFFSET, 0)
    control = os.pread(fd, D.CONTROL_SIZE, size - D.CONTROL_SIZE)
    if len(ready) < 4 or len(header) < D.DATA_OFFSET or len(control) < D.CONTROL_SIZE:
        raise InvalidSegmentError(f"cannot attach {where}: the file shrank below {size} bytes while it was read")
    r = D.READY_OFFSET
    return header, control[:r] + ready + control[r + 4 :]


def validate(header: bytes, control: bytes, size: int, where: str) -> Facts:
    """ControlBlock.validate: magic, version, ready, CRC, dtype, ndim, shape, offsets, size, header."""
    check_file_size(size, where)
    (magic,) = struct.unpack_from("<Q", control, D.MAGIC_OFFSET)
    if magic != D.MAGIC:
        raise _invalid(where, f"no shared-arrays control block at offset {size - D.CONTROL_SIZE} (magic 0x{magic:x}, "
                              f"expected 0x{D.MAGIC:x})")
    (version,) = struct.unpack_from("<I", control, D.VERSION_OFFSET)
    if version != D.VERSION:
        raise _invalid(where, f"format version {version}, this library reads version {D.VERSION}")
    (ready,) = struct.unpack_from("<I", control, D.READY_OFFSET)
    if ready != D.READY:
        raise _invalid(where, f"segment is not ready (ready word 0x{ready:x}): its creator has not finished or died while creating it")
    (stored,) = struct.unpack_from("<I", control, D.CRC_OFFSET)
    actual = control_crc(control)
    if stored != actual:
        raise _invalid(where, f"control block checksum mismatch (stored 0x{stored:x}, computed 0x{actual:x}): "
                              "the control block was overwritten")
    code, ndim = struct.unpack_from("<iI", control, D.DTYPE_OFFSET)
    etype = BY_CODE.get(code)
    if etype is None:
        raise _invalid(where, f"unknown dtype code {code}")
    if not 1 <= ndim <= D.MAX_DIMS:
        raise _invalid(where, f"ndim {ndim} is outside 1..{D.MAX_DIMS}")
    dims = struct.unpack_from("<8q", control, D.SHAPE_OFFSET)
    for i, d in enumerate(dims):
        if i < ndim and d < 1:
            raise _invalid(where, f"shape[{i}] is {d}, must be >= 1")
        if i >= ndim and d != 0:
            raise _invalid(where, f"shape[{i}] is {d} beyond ndim {ndim}")
    shape = tuple(dims[:ndim])
    n = data_length(shape, etype.item_size)
    if n < 0:
        raise _invalid(where, f"shape {list(shape)} of {etype.descr} overflows or exceeds 1 TiB")
    off, length, aid, cpid, cstart, created, fl = struct.unpack_from("<qqQQQQQ", control, D.DATA_OFFSET_OFFSET)
    if off != D.DATA_OFFSET:
        raise _invalid(where, f"data offset {off}, expected {D.DATA_OFFSET}")
    if length != n:
        raise _invalid(where, f"data length {length} does not match shape {list(shape)} of {etype.descr} ({n} bytes)")
    if file_size(n) != size:
        raise _invalid(where, f"file is {size} bytes, but shape {list(shape)} of {etype.descr} needs {file_size(n)}")
    prefix = npy_prefix(etype.descr, shape)
    page = header[: D.DATA_OFFSET]
    if page[: len(prefix)] != prefix or page[len(prefix) : -1].strip(b" ") or page[-1:] != b"\n":
        raise _invalid(where, f".npy header does not match the control block (expected {etype.descr} {list(shape)})")
    return Facts(etype, shape, n, aid, cpid, cstart, created, fl)


def register_attach(c: Words, where: str) -> int:
    """ControlBlock.registerAttach: a free slot, or on a second pass one of a dead process."""
    me = _proc.self_pid()
    for pass_ in range(2):
        for i in range(D.ATTACH_SLOTS):
            off = D.ATTACH_SLOTS_OFFSET + D.SLOT_SIZE * i
            pid = c.load64(off)
            free = pid == 0 or (pass_ == 1 and not _proc.is_alive(pid, c.load64(off + 8)))
            if free and c.cas64(off, pid, me):
                c.store64(off + 8, _proc.self_start())
                return i
    raise SharedArraysError(f"cannot attach {where}: all {D.ATTACH_SLOTS} attach slots are held by live processes; "
                            "close some attachments first")


def release_attach(c: Words, index: int) -> None:
    off = D.ATTACH_SLOTS_OFFSET + D.SLOT_SIZE * index
    if c.load64(off) == _proc.self_pid():
        c.store64(off + 8, 0)
        c.cas64(off, _proc.self_pid(), 0)


def attached(c: Words) -> list[tuple[int, int, int]]:
    """(slot, pid, start) of the occupied attach slots."""
    out = []
    for i in range(D.ATTACH_SLOTS):
        off = D.ATTACH_SLOTS_OFFSET + D.SLOT_SIZE * i
        pid = c.load64(off)
        if pid:
            out.append((i, pid, c.load64(off + 8)))
    return out


# ---------------------------------------------------------------- create


def create_exclusive(target: str, facts: Facts, space_fix: str, handle_of: Callable[[int], Handle],
                     init: Callable[[int, int], None] | None = None) -> Segment:
    d = os.path.dirname(target)
    size = file_size(facts.data_length)
    if os.path.lexists(target):
        raise SegmentExistsError(f"{target} already exists; choose another name, attach to it, or remove it (bin/sharedarrays rm)")
    free = _usable_space(d)
    if 0 <= free < size:
        raise _no_space(d, size, free, space_fix)
    temp = None
    fd = -1
    mm = None
    linked = False
    try:
        for attempt in range(5):
            temp = os.path.join(d, f"{TEMP_PREFIX}{_proc.self_pid()}-{_proc.self_start()}-{secrets.randbits(32):08x}")
            fd = _open_locked_temp(temp)
            if fd >= 0:
                break
        else:
            raise SharedArraysError(f"cannot create {temp}: its temporary file was removed 5 times right after it was made; "
                                    f"is another program deleting files in {d}?")
        _write_header_page(fd, facts, d, size, space_fix, temp)
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EFBIG):
                raise _no_space(d, size, _usable_space(d), space_fix) from None
            raise OSError(e.errno, f"posix_fallocate({temp}, {size} bytes) failed: {os.strerror(e.errno)}") from None
        mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        write_control(mm, facts, init)
        try:
            os.link(temp, target)
        except FileExistsError:
            raise SegmentExistsError(f"{target} already exists (created concurrently); it was not touched") from None
        linked = True
        os.unlink(temp)
        # the descriptor stays open, with its LOCK_SH: the kernel's record that this process uses the file
        return Segment(facts, True, fd, mm, target, handle_of(facts.id), -1)
    except BaseException:
        if mm is not None:
            mm.close()
        if fd >= 0:
            mine = os.fstat(fd)
            if _named_by(mine, temp):
                os.unlink(temp)
            if linked and _named_by(mine, target):
                os.unlink(target)
            os.close(fd)
        raise


def _open_locked_temp(temp: str) -> int:
    fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        os.close(fd)
        raise
    if _named_by(os.fstat(fd), temp):
        return fd
    os.close(fd)  # a sweep removed it between open and lock
    return -1


def _write_header_page(fd: int, facts: Facts, d: str, size: int, fix: str, temp: str) -> None:
    try:
        n = os.pwrite(fd, npy_header(facts.etype.descr, facts.shape), 0)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EFBIG):
            raise _no_space(d, size, _usable_space(d), fix) from None
        raise
    if n != D.DATA_OFFSET:
        raise SharedArraysError(f"pwrite({temp}) wrote {n} of {D.DATA_OFFSET} bytes")


def create_memfd(facts: Facts, name: str, init: Callable[[int, int], None] | None = None) -> Segment:
    size = file_size(facts.data_length)
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    mm = None
    try:
        os.ftruncate(fd, size)
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.ENOMEM):
                raise InsufficientSpaceError(f"cannot reserve {_bytes(size)} for memfd {name}: posix_fallocate failed with errno"
                                             f" {e.errno} ({os.strerror(e.errno)}); free memory or raise the memory limit of"
                                             " this process", size, -1) from None
            raise
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        write_control(mm, facts, init)
        return Segment(facts, True, fd, mm, None, Handle("memfd", pid=_proc.self_pid(), fd=fd, id=facts.id), -1)
    except BaseException:
        if mm is not None:
            mm.close()
        os.close(fd)
        raise


# ---------------------------------------------------------------- attach


def _refused(verb: str, p: str, why: str) -> InvalidSegmentError:
    return InvalidSegmentError(f"cannot {verb} {p}: it {why}")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "of unknown type"


def check_stat(s: os.stat_result, p: str, verb: str = "attach", trusted: frozenset = frozenset()) -> None:
    """SegmentFile.check: regular, this user's (or of a trusted uid), fully allocated."""
    if not stat.S_ISREG(s.st_mode):
        raise _refused(verb, p, f"is {_kind(s.st_mode)}; segments are regular files")
    me = os.geteuid()
    if s.st_uid != me and s.st_uid not in trusted:
        raise _refused(verb, p, f"belongs to uid {s.st_uid}, not to this user (uid {me}); another user's file is not trusted"
                                f" unless trust_uid={s.st_uid} says so")
    if s.st_blocks * 512 < s.st_size:
        raise _refused(verb, p, f"is sparse: {s.st_blocks * 512} of its {s.st_size} bytes are allocated, and shared-arrays"
                                " reserves every byte at create, so it is not a segment (mapping its holes would crash the"
                                " process with SIGBUS)")


def open_checked(p: str, verb: str = "attach", read_write: bool = True, trusted: frozenset = frozenset()) -> int:
    try:
        fd = os.open(p, (os.O_RDWR if read_write else os.O_RDONLY) | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        n = e.errno
        if n == errno.ENOENT:
            raise SegmentNotFoundError(f"cannot {verb} {p}: it does not exist") from None
        if n == errno.ENAMETOOLONG:
            raise SegmentNotFoundError(f"cannot {verb} {p}: no file can have this path (the kernel refuses it as too long)") from None
        if n == errno.ENOTDIR:
            raise SegmentNotFoundError(f"cannot {verb} {p}: it does not exist (a part of the path before its last name is not"
                                       " a directory)") from None
        why = {errno.EROFS: "is on a read-only file system; segments are written in place",
               errno.ETXTBSY: "is a program being run; segments are regular files of data",
               errno.ENODEV: "is a device without a driver; segments are regular files",
               errno.ELOOP: "is a symbolic link; segments are regular files",
               errno.EISDIR: "is a directory; segments are regular files",
               errno.ENXIO: "is a socket or a device without a reader; segments are regular files",
               errno.EACCES: "cannot be opened for reading and writing by this user (permission denied)",
               errno.EPERM: "cannot be opened for reading and writing by this user (permission denied)"}.get(n)
        if why:
            raise _refused(verb, p, why) from None
        raise
    try:
        check_stat(os.fstat(fd), p, verb, trusted)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock_shared(fd: int, p: str, verb: str) -> None:
    """SegmentFile.lockShared: LOCK_SH (a remover holds LOCK_EX only for a moment), then the path must still name it."""
    _flock_shared(fd, p, verb)
    now = os.fstat(fd)
    if now.st_nlink == 0 or not _named_by(now, p):
        raise SegmentNotFoundError(f"cannot {verb} {p}: it was removed meanwhile")


def _flock_shared(fd: int, p: str, verb: str) -> None:
    """LOCK_SH on fd, waiting at most _LOCK_WAIT_NS: one who holds LOCK_EX for long (a process that locks its own file or
    the memfd it passed) is not waited for, so no attach blocks without end."""
    deadline = time.monotonic_ns() + _LOCK_WAIT_NS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic_ns() >= deadline:
                raise InvalidSegmentError(f"cannot {verb} {p}: another process has held it exclusively (flock LOCK_EX) for "
                                          f"{_LOCK_WAIT_NS // 1_000_000} ms; only a remover should, and only for a moment") from None
            time.sleep(0)


def attach_file(p: str, expected: Handle, handle_of: Callable[[int], Handle], trusted: frozenset = frozenset()) -> Segment:
    fd = open_checked(p, trusted=trusted)
    try:
        _lock_shared(fd, p, "attach")
        size = os.fstat(fd).st_size
    except BaseException:
        os.close(fd)
        raise
    return _attach(fd, p, size, expected, p, handle_of)


def attach_memfd(h: Handle, trusted: frozenset = frozenset()) -> Segment:
    proc = f"/proc/{h.pid}/fd/{h.fd}"

    def not_sealed(what: str) -> InvalidSegmentError:
        return InvalidSegmentError(f"cannot attach {h}: {proc} is {what}, not a sealed memfd; memfd arrays are memfd_create"
                                   " memory sealed against shrink and grow (F_SEAL_SHRINK|F_SEAL_GROW), so that no process"
                                   " can shrink them under a mapping")

    try:
        fd = os.open(proc, os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        raise SegmentNotFoundError(f"cannot attach {h}: {proc} does not exist (process {h.pid} exited or closed the array)") from None
    except IsADirectoryError:
        raise not_sealed("a directory") from None
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise not_sealed("a socket or a device") from None
        raise
    return attach_memfd_fd(fd, h, proc, trusted)


def attach_memfd_fd(fd: int, h: Handle, proc: str, trusted: frozenset = frozenset()) -> Segment:
    """Attaches the memfd open at fd (this function owns it: closed on failure); h gives the id to check."""

    def not_sealed(what: str) -> InvalidSegmentError:
        return InvalidSegmentError(f"cannot attach {h}: {proc} is {what}, not a sealed memfd; memfd arrays are memfd_create"
                                   " memory sealed against shrink and grow (F_SEAL_SHRINK|F_SEAL_GROW), so that no process"
                                   " can shrink them under a mapping")

    try:
        s = os.fstat(fd)
        if not stat.S_ISREG(s.st_mode):
            raise not_sealed(_kind(s.st_mode))
        try:
            seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        except OSError:
            raise not_sealed("a file that cannot be sealed") from None
        needed = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
        if seals & needed != needed:
            raise not_sealed(f"a memfd without the seals against shrink and grow (seals 0x{seals:x})")
        check_stat(s, proc, "attach", trusted)
        _flock_shared(fd, proc, "attach")  # bounded: the owner of a memfd may hold LOCK_EX on it
    except BaseException:
        os.close(fd)
        raise
    return _attach(fd, None, s.st_size, h, str(h), lambda i: Handle("memfd", pid=_proc.self_pid(), fd=fd, id=i))


def attach_handle(handle, trusted: frozenset = frozenset()) -> Segment:
    """Attaches the segment a handle (a string, or anything whose str() is one) names."""
    h = parse_handle(str(handle))
    if h.backend == "shm":
        p = os.path.join(shm_directory(), h.name)
        return attach_file(p, h, lambda i: Handle("shm", name=h.name, id=i), trusted)
    if h.backend == "file":
        d = file_default_directory()
        if os.path.dirname(h.path) == d:
            unsafe = unsafe_directory(d)
            if unsafe:
                raise InvalidSegmentError(f"cannot attach {h}: {unsafe}")
        return attach_file(h.path, h, lambda i: Handle("file", path=h.path, id=i), trusted)
    if h.backend == "memfd":
        return attach_memfd(h, trusted)
    raise SharedArraysError(f"cannot attach {h}")


def _attach(fd: int, path: str | None, size: int, expected: Handle, where: str, handle_of: Callable[[int], Handle]) -> Segment:
    mm = None
    slot = -1
    words = None
    try:
        # read (pread) and checked before the file is mapped
        header, control = read_pages(fd, size, where)
        facts = validate(header, control, size, where)
        if expected.id is not None and expected.id != facts.id:
            raise InvalidSegmentError(f"cannot attach {where}: handle {expected} expects array id {expected.id:016x}, the segment"
                                      f" has id {facts.id:016x} (the name was reused for another array)")
        if path is not None and os.fstat(fd).st_size < size:
            raise InvalidSegmentError(f"cannot attach {where}: the file shrank from {size} bytes while it was attached")
        mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        words = Words(_native.address(mm) + size - D.CONTROL_SIZE)
        slot = register_attach(words, where)
        return Segment(facts, False, fd, mm, path, handle_of(facts.id), slot)
    except BaseException:
        if slot >= 0:
            release_attach(words, slot)
        if mm is not None:
            mm.close()
        os.close(fd)
        raise


def resolve_create_target(backend: str, name: str | None, path: str | None) -> str:
    if backend == "shm":
        d = shm_directory()
        unsafe = others_may_remove(d)
        if unsafe:
            raise SharedArraysError(f"cannot create a shm array in {d}: {unsafe}; chmod +t {d} (mode 1777, as /dev/shm has), "
                                    f"or point {DIR_ENV} at a directory of yours with mode 0700")
        return os.path.join(d, validate_name(name or f"sa-{secrets.randbits(64):016x}"))
    if path is not None:
        return os.path.normpath(os.path.abspath(path))
    d = file_default_directory()
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
    except OSError as e:
        raise SharedArraysError(f"cannot create directory {d} for file-backed arrays: {e}") from None
    unsafe = unsafe_directory(d)
    if unsafe:
        raise SharedArraysError(f"cannot create a file-backed array in {d}: {unsafe}")
    return os.path.join(d, validate_name(name or f"sa-{secrets.randbits(64):016x}"))
