"""Barrier: the JVM's SharedBarrier (internal/sync/BarrierProtocol.java), on the same words (PROTOCOL.md section 12)."""

from __future__ import annotations

import atexit
import threading
import time
import weakref

from . import _proc
from ._array import SharedArray, attach as _attach, create as _create
from ._errors import BarrierBrokenError, InvalidSegmentError
from ._futex import SLICE_NANOS, WAIT_SPINS
from ._layout import MASK64, BarrierDescriptor as B
from ._words import OnSegment, data_words, ns

REASONS = ("PARTY_DIED", "PARTY_LEFT", "TIMED_OUT", "CANCELLED")
LEFT = B.LEFT & MASK64
_barriers: "weakref.WeakSet[Barrier]" = weakref.WeakSet()


def words(parties: int) -> int:
    return 8 + 2 * parties


def _slot(i: int) -> int:
    return B.SLOTS_OFFSET + B.SLOT_SIZE * i


def _s32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


# how long a reader waits for BROKEN_BY after it found the reason set (BarrierProtocol.BY_WAIT_NANOS), and at
# least, whatever its deadline (BY_WAIT_FLOOR_NANOS): a wait whose time is up may still meet a breaker mid-break
BY_WAIT_NANOS = 100_000_000
BY_WAIT_FLOOR_NANOS = 10_000_000


def _left(timeout_ns: int | None, start: int) -> int | None:
    return None if timeout_ns is None else timeout_ns - (time.monotonic_ns() - start)


def _broken_by(w, left_ns: int | None) -> int:
    """BROKEN_BY, waited for: its breaker stores it right after its CAS of the reason and may be descheduled in
    between, so a reader then found 0 (a dead party named "pid 0"). Up to BY_WAIT_NANOS and the caller's time
    left, but at least BY_WAIT_FLOOR_NANOS; 0 if still not there (the breaker died between the two)."""
    by = w.load64(B.BROKEN_BY_OFFSET)
    limit = BY_WAIT_NANOS if left_ns is None else min(BY_WAIT_NANOS, max(BY_WAIT_FLOOR_NANOS, left_ns))
    start = time.monotonic_ns()
    while by == 0 and time.monotonic_ns() - start < limit:
        time.sleep(0.00005)  # the breaker may need this core
        by = w.load64(B.BROKEN_BY_OFFSET)
    return by


class Barrier(OnSegment):
    """A cyclic barrier of `parties` processes (JVM or Python) in shared memory, passed by handle.

    Each party register()s (at the latest at its first wait) and calls wait(); the last arrival
    releases all. A registered party that dies or close()s breaks the barrier for the others
    (BarrierBrokenError with reason PARTY_DIED / PARTY_LEFT and its pid), as does a timed-out wait
    (TIMED_OUT); a broken barrier stays broken. Thread-safe; one party slot per instance.
    """

    def __init__(self, arr: SharedArray, parties: int) -> None:
        self._arr = arr
        self.parties = parties
        self._slot = -1
        self._guard = threading.Lock()
        _barriers.add(self)

    @staticmethod
    def create(parties: int, name: str | None = None, lifetime: str | None = None, backend: str | None = None) -> "Barrier":
        if not 1 <= parties <= B.MAX_PARTIES:
            raise ValueError(f"a barrier has 1 to {B.MAX_PARTIES} parties, but parties was {parties}")

        def init(base: int, size: int) -> None:
            from ._futex import Words
            w = Words(base + 4096)
            w.store64(B.PARTIES_OFFSET, parties)
            w.store64(B.MAGIC_OFFSET, B.MAGIC)

        return Barrier(_create(words(parties), "i8", name=name, lifetime=lifetime, backend=backend, _init=init), parties)

    @staticmethod
    def attach(handle) -> "Barrier":
        arr = _attach(str(handle))
        try:
            parties = -1
            if arr.dtype.str == "<i8" and len(arr.shape) == 1 and arr.shape[0] >= words(1):
                with data_words(arr) as w:
                    p = w.load64(B.PARTIES_OFFSET)
                    if w.load64(B.MAGIC_OFFSET) == B.MAGIC and 1 <= p <= B.MAX_PARTIES and arr.shape[0] == words(p):
                        parties = p
            if parties < 0:
                raise InvalidSegmentError(f"{handle} is not a barrier: it is an array of {arr.dtype} {list(arr.shape)} "
                                          "without the barrier's words")
            return Barrier(arr, parties)
        except BaseException:
            arr.close()
            raise

    def register(self) -> int:
        """Claims a party slot for this instance (idempotent); its index. RuntimeError if all are taken."""
        with self._guard:
            if self._slot >= 0:
                return self._slot
            me = _proc.self_ident()
            with data_words(self._arr) as w:
                for i in range(self.parties):
                    if w.cas64(_slot(i), 0, me):
                        self._slot = i
                        return i
            raise RuntimeError(f"barrier {self.handle} has all {self.parties} parties registered (pids "
                               f"{self.registered_pids()}); create it with more parties")

    def registered_pids(self) -> list[int]:
        with data_words(self._arr) as w:
            out = []
            for i in range(self.parties):
                v = w.load64(_slot(i))
                if v and not v & LEFT:
                    out.append(_proc.ident_pid(v))
            return out

    @property
    def broken(self) -> bool:
        with data_words(self._arr) as w:
            return w.load64(B.BROKEN_REASON_OFFSET) != 0

    @property
    def waiting(self) -> int:
        with data_words(self._arr) as w:
            return w.load64(B.ARRIVED_OFFSET)

    def wait(self, timeout: float | None = None) -> int:
        """Arrives and waits for the others; returns the arrival index (0 for the last to arrive).

        timeout: seconds (None: no limit); when it runs out the barrier breaks (TIMED_OUT) for everyone.
        Raises BarrierBrokenError if this generation broke or the barrier was broken already.
        """
        self.register()
        timeout_ns = ns(timeout)
        with data_words(self._arr) as w:
            return self._await(w, timeout_ns, timeout)

    def _await(self, w, timeout_ns: int | None, timeout) -> int:
        parties = self.parties
        start = time.monotonic_ns()
        gen = w.load32(B.GENERATION_OFFSET)
        if w.load64(B.BROKEN_REASON_OFFSET) != 0:
            raise self._broken(w, timeout_ns)
        arrived = w.fetch_add64(B.ARRIVED_OFFSET, 1) + 1
        if arrived == parties:
            # minus parties, not = 0: an extra arrival already counts for the next generation
            w.fetch_add64(B.ARRIVED_OFFSET, -parties)
            w.bump(B.GENERATION_OFFSET, B.WAITERS_OFFSET)
            return 0
        checked = start
        spun = 0
        while True:
            if w.load32(B.GENERATION_OFFSET) != gen:
                if w.load64(B.BROKEN_REASON_OFFSET) != 0 and (w.load64(B.BROKEN_GENERATION_OFFSET) & 0xFFFFFFFF) == gen:
                    raise self._broken(w, _left(timeout_ns, start))
                return parties - arrived
            if w.load64(B.BROKEN_REASON_OFFSET) != 0:
                # broken, the generation not bumped yet, or never (its breaker died between the two stores): a break
                # attempt of ours would fail, and the loop would never sleep again
                raise self._broken(w, _left(timeout_ns, start))
            now = time.monotonic_ns()
            waited = now - start
            if timeout_ns is not None and waited >= timeout_ns:
                waiting = w.load64(B.ARRIVED_OFFSET)
                if self._break(w, gen, 3, _proc.self_ident()):
                    raise BarrierBrokenError(f"barrier {self.handle}: timed out after {timeout} s with {waiting} of {parties}"
                                             " parties arrived; the barrier is now broken for all parties", "TIMED_OUT",
                                             _proc.self_pid())
                continue
            if now - checked >= SLICE_NANOS:
                checked = now
                dead = self._dead_party(w)
                if dead:
                    self._break(w, gen, 2 if dead & LEFT else 1, dead & ~LEFT)
                    continue
            if spun < WAIT_SPINS:
                spun += 1
                continue
            left = SLICE_NANOS if timeout_ns is None else min(SLICE_NANOS, timeout_ns - waited)
            w.sleep(B.GENERATION_OFFSET, B.WAITERS_OFFSET, gen, left)

    def _dead_party(self, w) -> int:
        for i in range(self.parties):
            v = w.load64(_slot(i))
            if v and (v & LEFT or not _proc.ident_alive(v)):
                return v
        return 0

    @staticmethod
    def _break(w, gen: int, reason: int, by: int) -> bool:
        """breakBarrier: false if generation gen tripped or broke already."""
        if w.load32(B.GENERATION_OFFSET) != gen or not w.cas64(B.BROKEN_REASON_OFFSET, 0, reason):
            return False
        w.store64(B.BROKEN_BY_OFFSET, by)
        # the generation now, not gen (see PROTOCOL.md 12): sign-extended as Java's (long) (int)
        w.store64(B.BROKEN_GENERATION_OFFSET, _s32(w.load32(B.GENERATION_OFFSET)))
        w.bump(B.GENERATION_OFFSET, B.WAITERS_OFFSET)
        return True

    def _broken(self, w, left_ns: int | None) -> BarrierBrokenError:
        code = w.load64(B.BROKEN_REASON_OFFSET)
        reason = REASONS[max(0, min(len(REASONS) - 1, code - 1))]
        pid = _proc.ident_pid(_broken_by(w, left_ns))
        why = {"PARTY_DIED": f"party pid {pid} died before the barrier tripped",
               "PARTY_LEFT": f"party pid {pid} closed the barrier, so it cannot trip any more",
               "TIMED_OUT": f"pid {pid} timed out waiting for the other parties",
               "CANCELLED": f"the wait of pid {pid} was cancelled or interrupted"}[reason]
        return BarrierBrokenError(f"barrier {self.handle} is broken: {why}", reason, pid)

    def close(self) -> None:
        """Leaves (a registered party that closes breaks later waits: PARTY_LEFT) and detaches. Idempotent."""
        with self._guard:
            self._leave()
            self._arr.close()

    def destroy(self) -> None:
        """Creator only: leaves, removes the name and detaches."""
        with self._guard:
            self._leave()
            self._arr.destroy()

    def _leave(self) -> None:
        # a fork()ed child's copy leaves nothing: the slot is its parent's
        if self._slot < 0 or self._arr.closed or self._arr._seg.pid != _proc.self_pid():
            return
        me = _proc.self_ident()
        try:
            with data_words(self._arr) as w:
                w.cas64(_slot(self._slot), me, me | LEFT)
        except ValueError:
            pass

    def __repr__(self) -> str:
        if self._arr.closed:
            return f"Barrier({self.handle}, parties={self.parties}, closed)"
        return f"Barrier({self.handle}, parties={self.parties}, waiting={self.waiting}, broken={self.broken})"


@atexit.register
def _close_at_exit() -> None:
    # a normal exit leaves, as close() does
    for b in list(_barriers):
        try:
            b.close()
        except Exception:
            pass
