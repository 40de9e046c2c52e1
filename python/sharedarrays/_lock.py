"""The readers-writer lock of one array: internal/sync/ArrayLock.java's protocol, in two tiers.

Across processes the lock is held by a process, in the control block's words: the writer word
holds the ident of the writing process; each reading process holds a reader slot. A writer first
claims the writer word (which stops new readers), then waits until every reader slot is empty. A
reader claims a slot, then checks the writer word; if a writer came in between it steps back.
Sleepers use FUTEX_WAIT on the sequence words in 50 ms slices and between slices check whether the
holders they wait for still run: a dead process's hold is taken over (writer) or cleared (reader),
counted in RECOVERIES_OFFSET with its ident in LAST_DEAD_OFFSET.

Within this process one _LocalLock per file (st_dev, st_ino) orders the threads and makes the lock
reentrant; only the first reader and the writer touch shared memory. A thread holding the write
lock may take the read lock; a read lock cannot be upgraded.
"""

from __future__ import annotations

import threading
import time

from . import _proc
from ._errors import WaitTimeoutError
from ._futex import SPINS, Wait, Words
from ._layout import SegmentDescriptor as D

_registry: dict[tuple[int, int], "_LocalLock"] = {}
_registry_guard = threading.Lock()


def retain(key: tuple[int, int]) -> "_LocalLock":
    with _registry_guard:
        lock = _registry.get(key)
        if lock is None:
            lock = _registry[key] = _LocalLock()
        lock.refs += 1
        return lock


def release(key: tuple[int, int]) -> None:
    with _registry_guard:
        lock = _registry.get(key)
        if lock is not None:
            lock.refs -= 1
            if lock.refs == 0:
                del _registry[key]


def _slot_offset(i: int) -> int:
    return D.READER_SLOTS_OFFSET + D.SLOT_SIZE * i


def _timed_out(what: str, kind: str, holder: int, timeout_ns: int | None) -> WaitTimeoutError:
    secs = (timeout_ns or 0) / 1e9
    return WaitTimeoutError(
        f"could not take the {kind} lock of {what} within {secs:g} s: it is held by {_proc.describe(holder)}."
        " Nothing was locked; the call may be repeated"
    )


def _left(deadline: float | None) -> int | None:
    return None if deadline is None else max(0, deadline - time.monotonic_ns())


class _LocalLock:
    """The in-process tier: a reentrant readers-writer lock of threads, and this process's reader slot."""

    def __init__(self) -> None:
        self.refs = 0
        self.cond = threading.Condition()
        self.writer: int | None = None
        self.write_count = 0
        self.read_counts: dict[int, int] = {}
        self.guard = threading.Lock()  # guards readers and slot; held while the first reader waits
        self.readers = 0
        self.slot = -1

    def _wait_local(self, ready, deadline, words, what, kind, timeout_ns) -> None:
        while not ready():
            left = _left(deadline)
            if left == 0:
                w = words.load64(D.WRITER_OFFSET)
                raise _timed_out(what, kind, w if w else _proc.self_ident(), timeout_ns)
            self.cond.wait(None if left is None else left / 1e9)

    def lock_write(self, words: Words, what: str, timeout_ns: int | None) -> None:
        me = threading.get_ident()
        deadline = None if timeout_ns is None else time.monotonic_ns() + timeout_ns
        with self.cond:
            if self.writer == me:
                self.write_count += 1
                return
            if self.read_counts.get(me):
                raise RuntimeError(
                    f"cannot take the write lock of {what}: this thread holds its read lock, and a read lock"
                    " cannot be upgraded; take the write lock first"
                )
            self._wait_local(lambda: self.writer is None and not self.read_counts, deadline, words, what, "write", timeout_ns)
            self.writer = me
            self.write_count = 1
        try:
            _acquire_writer(words, what, _left(deadline), timeout_ns)
        except BaseException:
            with self.cond:
                self.writer = None
                self.write_count = 0
                self.cond.notify_all()
            raise

    def unlock_write(self, words: Words) -> None:
        me = threading.get_ident()
        with self.cond:
            if self.writer != me:
                raise RuntimeError("this thread does not hold the write lock; a lock is released by the thread that took it")
            if self.write_count > 1:
                self.write_count -= 1
                return
            reads = self.read_counts.get(me, 0)
        try:
            if reads > 0:
                # read holds taken under the write lock outlive it: cover them with a reader slot first
                with self.guard:
                    if self.readers == 0:
                        self.slot = _claim_slot(words, _proc.self_ident(), True)
                    self.readers += reads
        finally:
            _release_writer(words)
            with self.cond:
                self.writer = None
                self.write_count = 0
                self.cond.notify_all()

    def lock_read(self, words: Words, what: str, timeout_ns: int | None) -> None:
        me = threading.get_ident()
        deadline = None if timeout_ns is None else time.monotonic_ns() + timeout_ns
        with self.cond:
            if self.writer == me:
                self.read_counts[me] = self.read_counts.get(me, 0) + 1
                return
            self._wait_local(lambda: self.writer is None, deadline, words, what, "read", timeout_ns)
            self.read_counts[me] = self.read_counts.get(me, 0) + 1
        try:
            left = _left(deadline)
            if not self.guard.acquire(timeout=-1 if left is None else left / 1e9):
                raise _timed_out(what, "read", words.load64(D.WRITER_OFFSET) or _proc.self_ident(), timeout_ns)
            try:
                if self.readers == 0:
                    self.slot = _acquire_reader(words, what, _left(deadline), timeout_ns)
                self.readers += 1
            finally:
                self.guard.release()
        except BaseException:
            self._drop_read(me)
            raise

    def unlock_read(self, words: Words) -> None:
        me = threading.get_ident()
        with self.cond:
            if not self.read_counts.get(me):
                raise RuntimeError("this thread does not hold the read lock; a lock is released by the thread that took it")
            under_write = self.writer == me
        try:
            if not under_write:
                with self.guard:
                    self.readers -= 1
                    if self.readers == 0:
                        # compare-and-set: never clear a slot another process took over meanwhile
                        words.cas64(_slot_offset(self.slot), _proc.self_ident(), 0)
                        self.slot = -1
                        words.bump(D.READER_SEQ_OFFSET, D.READER_WAITERS_OFFSET)
        finally:
            self._drop_read(me)

    def _drop_read(self, me: int) -> None:
        with self.cond:
            n = self.read_counts.get(me, 0) - 1
            if n <= 0:
                self.read_counts.pop(me, None)
            else:
                self.read_counts[me] = n
            self.cond.notify_all()


# ---------------------------------------------------------------- across processes


def _acquire_writer(c: Words, what: str, left_ns: int | None, timeout_ns: int | None) -> None:
    me = _proc.self_ident()
    wait = None  # started at the first contention
    while True:
        cur = c.load64(D.WRITER_OFFSET)
        if cur == 0:
            if c.cas64(D.WRITER_OFFSET, 0, me):
                break
            wait = wait or Wait(left_ns, SPINS)
            _expire_on_churn(c, wait, what, "write", timeout_ns)
            continue
        wait = wait or Wait(left_ns, SPINS)
        if not _await_writer_change(c, cur, wait):
            raise _timed_out(what, "write", cur, timeout_ns)
        _expire_on_churn(c, wait, what, "write", timeout_ns)
    # the writer word is ours: no new reader gets in; wait for the present ones to leave
    try:
        _drain_readers(c, me, wait, left_ns, what, timeout_ns)
    except BaseException:
        _release_writer(c)
        raise


def _drain_readers(c: Words, me: int, wait: Wait | None, left_ns, what: str, timeout_ns) -> None:
    while True:
        seq = c.load32(D.READER_SEQ_OFFSET)
        expired = wait is not None and wait.expired()
        # a last look before giving up: a dead reader is cleared even at the deadline
        check = wait is not None and (wait.liveness_due() or expired)
        busy = 0
        for i in range(D.READER_SLOTS):
            r = c.load64(_slot_offset(i))
            if r == 0 or r == me:
                continue
            if check and not _proc.ident_alive(r):
                if c.cas64(_slot_offset(i), r, 0):
                    _recovered(c, r)
                continue
            busy = r
        if busy == 0:
            return
        if expired:
            raise _timed_out(what, "write", busy, timeout_ns)
        wait = wait or Wait(left_ns, SPINS)
        wait.pause(c, D.READER_SEQ_OFFSET, D.READER_WAITERS_OFFSET, seq)


def _release_writer(c: Words) -> None:
    c.cas64(D.WRITER_OFFSET, _proc.self_ident(), 0)
    c.bump(D.WRITER_SEQ_OFFSET, D.WRITER_WAITERS_OFFSET)


def _acquire_reader(c: Words, what: str, left_ns: int | None, timeout_ns: int | None) -> int:
    me = _proc.self_ident()
    wait = None
    while True:
        w = c.load64(D.WRITER_OFFSET)
        if w != 0:
            wait = wait or Wait(left_ns, SPINS)
            if not _await_writer_change(c, w, wait):
                raise _timed_out(what, "read", w, timeout_ns)
            _expire_on_churn(c, wait, what, "read", timeout_ns)
            continue
        rseq = c.load32(D.READER_SEQ_OFFSET)
        s = _claim_slot(c, me, False)
        if s < 0:
            wait = wait or Wait(left_ns, SPINS)
            if wait.expired():
                pids = [_proc.ident_pid(c.load64(_slot_offset(i))) for i in range(D.READER_SLOTS)]
                raise WaitTimeoutError(
                    f"could not take the read lock of {what} within {(timeout_ns or 0) / 1e9:g} s: all {D.READER_SLOTS}"
                    f" reader slots are held by live processes {pids}. Nothing was locked; the call may be repeated"
                )
            wait.pause(c, D.READER_SEQ_OFFSET, D.READER_WAITERS_OFFSET, rseq)
            continue
        if c.load64(D.WRITER_OFFSET) == 0:
            return s
        # a writer claimed the word between our two reads: step back so that it can proceed
        c.store64(_slot_offset(s), 0)
        c.bump(D.READER_SEQ_OFFSET, D.READER_WAITERS_OFFSET)
        wait = wait or Wait(left_ns, SPINS)
        _expire_on_churn(c, wait, what, "read", timeout_ns)


def _expire_on_churn(c: Words, wait: Wait, what: str, kind: str, timeout_ns) -> None:
    """ArrayLock.expireOnChurn: after a lost CAS or a changed writer word, a word another process keeps changing
    must not carry a wait past its deadline."""
    holder = c.load64(D.WRITER_OFFSET)
    if holder != 0 and wait.expired():
        raise _timed_out(what, kind, holder, timeout_ns)


def _await_writer_change(c: Words, w: int, wait: Wait) -> bool:
    """True once the writer word no longer holds w; False if the wait ran out first. Clears a dead w."""
    while c.load64(D.WRITER_OFFSET) == w:
        expired = wait.expired()
        if (wait.liveness_due() or expired) and not _proc.ident_alive(w):
            if c.cas64(D.WRITER_OFFSET, w, 0):
                _recovered(c, w)
                c.bump(D.WRITER_SEQ_OFFSET, D.WRITER_WAITERS_OFFSET)
            return True
        if expired:
            return False
        seq = c.load32(D.WRITER_SEQ_OFFSET)
        if c.load64(D.WRITER_OFFSET) == w:
            wait.pause(c, D.WRITER_SEQ_OFFSET, D.WRITER_WAITERS_OFFSET, seq)
    return True


def _claim_slot(c: Words, me: int, must_have: bool) -> int:
    """A free reader slot, or one whose process died; -1 if all belong to live processes. must_have (a writer covering
    its read holds, whose word keeps new readers out) looks for 0.1 s at most: readers about to step back free theirs."""
    give_up = time.monotonic_ns() + 100_000_000
    for pass_ in range(1_000_000 if must_have else 2):
        if pass_ > 1 and time.monotonic_ns() > give_up:
            break
        for i in range(D.READER_SLOTS):
            r = c.load64(_slot_offset(i))
            if r == 0 and c.cas64(_slot_offset(i), 0, me):
                return i
            if pass_ == 1 and r != 0 and not _proc.ident_alive(r) and c.cas64(_slot_offset(i), r, me):
                _recovered(c, r)
                return i
    if must_have:
        raise RuntimeError(f"all {D.READER_SLOTS} reader slots are held by live processes")
    return -1


def _recovered(c: Words, dead: int) -> None:
    c.fetch_add64(D.RECOVERIES_OFFSET, 1)
    c.store64(D.LAST_DEAD_OFFSET, dead)


def writer_pid(c: Words) -> int:
    return _proc.ident_pid(c.load64(D.WRITER_OFFSET))


def reader_pids(c: Words) -> list[int]:
    return [_proc.ident_pid(r) for r in (c.load64(_slot_offset(i)) for i in range(D.READER_SLOTS)) if r]


def recoveries(c: Words) -> int:
    return c.load64(D.RECOVERIES_OFFSET)


# ---------------------------------------------------------------- change signal (ChangeSignal.java)


def signal_change(c: Words) -> int:
    """Adds one to the change count, wakes its waiters, returns the new count."""
    n = (c.fetch_add64(D.CHANGE_COUNT_OFFSET, 1) + 1) & 0xFFFFFFFFFFFFFFFF
    c.wake(D.CHANGE_COUNT_OFFSET, D.CHANGE_WAITERS_OFFSET)
    return n


def change_count(c: Words) -> int:
    return c.load64(D.CHANGE_COUNT_OFFSET)


def await_change(c: Words, last_seen: int, timeout_ns: int | None) -> int:
    """Waits until the count differs from last_seen, at most timeout_ns; returns the count."""
    wait = Wait(timeout_ns)
    while True:
        now = change_count(c)
        if now != last_seen or wait.expired():
            return now
        # the low 32 bits of the count are the futex word (little-endian)
        wait.pause(c, D.CHANGE_COUNT_OFFSET, D.CHANGE_WAITERS_OFFSET, last_seen & 0xFFFFFFFF)
