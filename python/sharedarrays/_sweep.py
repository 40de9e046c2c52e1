"""sweep: removes segments no process uses any more and dead creates' temporary files (Sweeper.java, AutoSweep.java).

Whether a segment is in use is the kernel's to say: every process that has it open holds flock(LOCK_SH),
so a sweep that gets LOCK_EX|LOCK_NB on its own descriptor knows that none does. The control block's
records (creator, attach slots) hold back OWNER segments too; SHARED ones are judged by the flock
alone; PERSISTENT ones are never swept. Only the file opened and locked is unlinked, checked again by
(st_dev, st_ino) just before. Anything that is not ours (another user's, not a regular file, not a
valid segment, any name) is skipped, never an error.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
import threading
import time

from . import _dead_queue, _proc, _scan, _segment
from ._format import is_header_page
from ._layout import SegmentDescriptor as D

AUTO_SWEEP_ENV = "SHARED_ARRAYS_AUTO_SWEEP"
PERIOD_NANOS = 5_000_000_000
POOL_PERIOD_NANOS = 1_000_000_000
_TEMP = re.compile(r"\.sa-tmp-(\+?[0-9]+)-(\+?[0-9]+)-([0-9a-fA-F]{8})")
_last = [None]
_last_for_pool = [None]  # its own clock: a create a moment ago must not hold back the sweep a stuck pool needs
_last_guard = threading.Lock()


def _files(d: str) -> list[str]:
    """The regular files in d (not following links), sorted."""
    out = []
    try:
        with os.scandir(d) as it:
            for e in it:
                try:
                    if e.is_file(follow_symlinks=False):
                        out.append(e.path)
                except OSError:
                    pass
    except OSError:
        return []  # an unreadable directory has nothing we may remove
    return sorted(out)


def sweep(dry_run: bool = False, directories: list[str] | None = None) -> list[str]:
    """Removes unused non-persistent segments and dead creates' temporary files; returns their paths.

    directories: default the shm directory (SHARED_ARRAYS_DIR or /dev/shm) and the default directory
    of file-backed arrays. dry_run: only report what would be removed. Pool slots still in flight
    in a removed queue are given back to their pools first.
    """
    removed = []
    would_unlink: dict[tuple[int, int], int] = {}  # a dry run's names per (st_dev, st_ino): links counted as a sweep would
    for d in _scan.scan_directories() if directories is None else directories:
        files = _files(d)
        # segments first: a create killed between its link and its unlink leaves its temporary name as a
        # second link of the segment; once the segment is removed, that name has one link and goes too
        for temps in (False, True):
            for p in files:
                if os.path.basename(p).startswith(_segment.TEMP_PREFIX) != temps:
                    continue
                try:
                    if _sweep_temp(p, dry_run, would_unlink) if temps else _sweep_segment(p, dry_run, would_unlink):
                        removed.append(p)
                except Exception:
                    pass  # not ours, damaged, or gone meanwhile: never touched, never fatal
    return removed


def _try_exclusive(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _unlink(p: str) -> None:
    try:
        os.unlink(p)
    except FileNotFoundError:
        pass


def _sweep_segment(p: str, dry_run: bool, would_unlink: dict[tuple[int, int], int]) -> bool:
    fd = _segment.open_checked(p, "sweep", read_write=False)
    try:
        info = _scan.read_fd(fd, p)
        # the records only hold back segments that older versions (no flock) may still use;
        # SHARED ones exist only since the flocks, and their creator may have closed them long ago
        if info.lifetime == "persistent" or (info.lifetime != "shared" and info.in_use):
            return False
        s = os.fstat(fd)
        if not _try_exclusive(fd) or not _segment._named_by(s, p):
            return False
        if dry_run:
            key = (s.st_dev, s.st_ino)
            would_unlink[key] = would_unlink.get(key, 0) + 1
        else:
            if info.kind == "queue":
                _dead_queue.free_slots(fd, info.bytes)
            _unlink(p)
        return True
    finally:
        os.close(fd)


def temp_creator(name: str) -> tuple[int, int] | None:
    """Names.tempCreator: (pid, start) of a create's temporary file name, or None if it is not one."""
    m = _TEMP.fullmatch(name)
    if m is None:
        return None
    pid, start = int(m.group(1)), int(m.group(2))
    return (pid, start) if pid < 1 << 63 and start < 1 << 63 else None


def _sweep_temp(p: str, dry_run: bool, would_unlink: dict[tuple[int, int], int]) -> bool:
    """A create's temporary file, removed only if it provably is one whose creator died (PROTOCOL.md section 7)."""
    creator = temp_creator(os.path.basename(p))
    if creator is None or _proc.is_alive(*creator):
        return False
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        s = os.fstat(fd)
        if not stat.S_ISREG(s.st_mode) or s.st_uid != os.geteuid():
            return False
        if not _try_exclusive(fd):
            return False
        # looked at under the lock: no create is writing it any more
        s = os.fstat(fd)
        if s.st_nlink - would_unlink.get((s.st_dev, s.st_ino), 0) != 1:
            return False
        if not (s.st_size == 0 or s.st_size % D.PAGE == 0 and is_header_page(os.pread(fd, D.DATA_OFFSET, 0))):
            return False
        if not _try_exclusive(fd) or not _segment._named_by(s, p):
            return False
        if not dry_run:
            _unlink(p)
        return True
    finally:
        os.close(fd)


def maybe_start() -> None:
    """AutoSweep.maybeStart: a sweep of the shm directory on a daemon thread, at most once per 5 s per process."""
    _maybe_start(_last, PERIOD_NANOS)


def maybe_start_for_pool() -> None:
    """AutoSweep.maybeStartForPool: the same for a pool acquire that waits while slots stay in flight, at most once a
    second (the queues it removes give their slots back)."""
    _maybe_start(_last_for_pool, POOL_PERIOD_NANOS)


def _maybe_start(clock: list, period: int) -> None:
    try:
        if os.environ.get(AUTO_SWEEP_ENV) == "0":
            return
        now = time.monotonic_ns()
        with _last_guard:
            if clock[0] is not None and now - clock[0] < period:
                return
            clock[0] = now
        d = _segment.shm_directory()
        threading.Thread(target=_auto, args=(d,), name="shared-arrays-auto-sweep", daemon=True).start()
    except Exception:
        pass  # a create never fails for its sweep: the next one, or sa.sweep(), does it


def _auto(d: str) -> None:
    try:
        sweep(False, [d])
    except BaseException:
        pass


def _forked() -> None:
    _last[0] = None
    _last_for_pool[0] = None


os.register_at_fork(after_in_child=_forked)
