"""Pool: the JVM's ArrayPool (internal/sync/PoolProtocol.java), on the same words (PROTOCOL.md section 13).

A pool is a segment of shape (slots, *slot_shape) whose control block holds one owner word per
slot: 0 free, the ident of the process holding it, or IN_QUEUE|tag<<32|position while a queue
carries it. Owner words change only by CAS, so a slot has one owner at a time.
"""

from __future__ import annotations

import atexit
import itertools
import time
import weakref

import numpy as np

from . import _native, _proc, _sweep
from ._array import SharedArray, _element_type, _shape, attach as _attach, create as _create
from ._errors import InvalidSegmentError, WaitTimeoutError
from ._futex import SLICE_NANOS, Wait, Words
from ._layout import MASK64, PoolProtocol as P, SegmentDescriptor as D
from ._words import OnSegment, control_words, ns

IN_QUEUE = P.IN_QUEUE & MASK64
_TAG_MASK = (1 << 31) - 1
# how long an acquire waits between two looks at the slots in flight (ArrayPool.STUCK_LOOK_NANOS)
STUCK_LOOK_NANOS = 250_000_000
_pools: "weakref.WeakSet[Pool]" = weakref.WeakSet()


def in_queue(tag: int, position: int) -> int:
    """PoolProtocol.inQueue: the owner word of a slot in flight as message `position` of the queue of `tag`."""
    return IN_QUEUE | (tag & _TAG_MASK) << 32 | (position & 0xFFFFFFFF)


def _owner(i: int) -> int:
    return D.POOL_OWNERS_OFFSET + 8 * i


def move(c: Words, i: int, frm: int, to: int) -> bool:
    """CAS of slot i's owner word; a slot freed (to == 0) bumps the pool's futex word."""
    if not c.cas64(_owner(i), frm, to):
        return False
    if to == 0:
        c.bump(D.POOL_SEQ_OFFSET, D.POOL_WAITERS_OFFSET)
    return True


def reclaim_dead(c: Words, slots: int) -> int:
    """Frees the slots whose owning process is gone (never the ones in flight); how many."""
    alive: dict[int, bool] = {}
    freed = 0
    for i in range(slots):
        o = c.load64(_owner(i))
        if o and not o & IN_QUEUE:
            if o not in alive:
                alive[o] = _proc.ident_alive(o)
            if not alive[o] and move(c, i, o, 0):
                freed += 1
    return freed


class Slot:
    """One slot of a pool held by this process: `.array` is its numpy view (writable).

    close() gives it back to the pool; sending it on a Queue moves it (this object is closed then).
    A Slot dropped without close() is given back when the garbage collector frees it; views of
    .array taken before must not be used after that. Thread-safe; `with` closes it.
    """

    # slots, not a dict: a Slot is made on every receive, and the dict was a third of its making
    __slots__ = ("pool", "index", "_array", "_state", "_me", "__weakref__")

    def __init__(self, pool: "Pool", index: int, state: list) -> None:
        # state: [0], already pool._held[index] (entered in the step that made the slot this process's, so
        # that a close of the pool meanwhile gives it back); then 1 moving (a send), 2 ended; each change is
        # one _native step (state_cas, slot_free, queue_put)
        self.pool = pool
        self.index = index
        self._state = state
        self._me = _proc.self_ident()
        a = pool._arr._array  # not .array's call: None once closed
        # the claim entered state in this Pool's held slots: not there, a close gave it back since (or the claim
        # was another Pool object's of the same segment, closed meanwhile)
        if a is None or state[0] != 0 or pool._held.get(index) is not state:
            raise ValueError(f"pool {pool.handle} is closed")
        self._array = a[index]

    @property
    def array(self) -> np.ndarray:
        if self._state[0] == 2:
            raise ValueError(f"slot {self.index} of pool {self.pool.handle} is closed (given back or sent)")
        return self._array

    @array.setter
    def array(self, value) -> None:
        a = self.array
        if value is not a:
            a[...] = value

    @property
    def handle(self) -> str:
        """The pool's handle: a slot travels as (pool handle, index)."""
        return self.pool.handle

    @property
    def shape(self) -> tuple[int, ...]:
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def closed(self) -> bool:
        return self._state[0] == 2

    def close(self) -> None:
        """Gives the slot back to the pool (frees it). Idempotent."""
        if self._state[0] == 2:
            # given back or sent: no state follows 2, so this needs no lock (a received Slot is dropped on every
            # receive of a loop, and the lock was half of what that drop cost)
            return
        self.pool._release_state(self.index, self._state, self._me)

    def __del__(self) -> None:
        # a Slot the garbage collector frees is given back (__del__, not weakref.finalize: a slot is made on
        # every receive, and a finalizer costs more than the rest of the receive)
        try:
            self.close()
        except Exception:
            pass

    def _move_to(self, owner: int) -> bool:
        """Gives the slot to an in-flight owner word (a send); False if this process no longer holds it."""
        me = _proc.self_ident()
        if not _native.state_cas(self._state, 0, 1):  # a close() meanwhile leaves the slot to this move, as SlotLease does
            return False
        ok = False
        try:
            with control_words(self.pool._arr) as c:
                ok = move(c, self.index, me, owner)
        finally:
            self._state[0] = 2 if ok else 0  # only the mover changes a state of 1
        if ok and self.pool._held.get(self.index) is self._state:
            del self.pool._held[self.index]  # before the message is out (the caller publishes it): no new Slot yet
        return ok

    def __reduce__(self):
        raise TypeError(f"a pool Slot cannot be pickled: it is this process's hold on slot {self.index}; send it on a "
                        "sa.Queue (it moves), or pickle the Pool and acquire in the other process")

    def __enter__(self) -> "Slot":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "held"
        return f"Slot({self.index} of {self.pool.handle}, shape={self._array.shape}, dtype={self._array.dtype.str}, {state})"


class Pool(OnSegment):
    """N equal slots of one dtype and shape in one segment, shared by JVM and Python processes.

    acquire() hands out a free slot owned by this process (waiting while none is free; a slot of a
    dead process is taken back); close() of the slot gives it back. The segment is a valid .npy of
    shape (slots, *slot_shape). close() gives back the slots this instance still holds.
    """

    def __init__(self, arr: SharedArray, slots: int) -> None:
        self._arr = arr
        self.slots = int(slots)
        self._held: dict[int, list] = {}
        self._cell_bodies: dict[int, tuple] = {}  # slot index: (sender, cell body, segment, owner word), see _queue
        self._next = itertools.count()
        self._closing = False  # set first by close(): the _native steps claim no slot of it from then on
        base = arr._seg.words.base
        # for _native's steps: the segment and the addresses of the owner words, the futex word and its waiters
        self._steps = (arr._seg, base + D.POOL_OWNERS_OFFSET, base + D.POOL_SEQ_OFFSET, base + D.POOL_WAITERS_OFFSET)
        _pools.add(self)

    @staticmethod
    def create(dtype, slots: int, slot_shape, name: str | None = None, lifetime: str | None = None,
               backend: str | None = None) -> "Pool":
        """A new pool of `slots` (1..256) slots of `slot_shape` (1 to 7 dimensions) of `dtype`."""
        if not 1 <= slots <= D.POOL_MAX_SLOTS:
            raise ValueError(f"a pool has 1 to {D.POOL_MAX_SLOTS} slots, but slots was {slots}")
        ss = _shape(slot_shape)
        if not 1 <= len(ss) < D.MAX_DIMS:
            raise ValueError(f"a slot has 1 to {D.MAX_DIMS - 1} dimensions, but slot_shape was {list(ss)}")
        _element_type(dtype)

        def init(base: int, size: int) -> None:
            c = Words(base + size - D.CONTROL_SIZE)
            c.store32(D.POOL_SLOTS_OFFSET, slots)
            c.store64(D.POOL_MAGIC_OFFSET, D.POOL_MAGIC)

        return Pool(_create((slots, *ss), dtype, name=name, lifetime=lifetime, backend=backend, _init=init), slots)

    @staticmethod
    def attach(handle, dtype=None) -> "Pool":
        """Attaches the pool a handle names; dtype, if given, must be the pool's (ValueError otherwise)."""
        arr = _attach(str(handle))
        try:
            if dtype is not None and _element_type(dtype).descr != _element_type(arr.dtype).descr:
                raise ValueError(f"pool {handle} holds {arr.dtype.str}, not {np.dtype(dtype).str}")
            with control_words(arr) as c:
                n = c.load32(D.POOL_SLOTS_OFFSET) if c.load64(D.POOL_MAGIC_OFFSET) == D.POOL_MAGIC else -1
            if not 1 <= n <= D.POOL_MAX_SLOTS or len(arr.shape) < 2 or arr.shape[0] != n:
                raise InvalidSegmentError(f"{handle} is not an array pool: it is an array of {arr.dtype.str} {list(arr.shape)}"
                                          " without pool words in its control block")
            return Pool(arr, n)
        except BaseException:
            arr.close()
            raise

    @property
    def id(self) -> int:
        return self._arr.id

    @property
    def dtype(self) -> np.dtype:
        return self._arr.dtype

    @property
    def slot_shape(self) -> tuple[int, ...]:
        return tuple(self._arr.shape[1:])

    @property
    def array(self) -> np.ndarray:
        """All slots at once, shape (slots, *slot_shape)."""
        return self._arr.array

    def free(self) -> int:
        """How many slots are free now (slots of dead processes are freed first)."""
        with control_words(self._arr) as c:
            reclaim_dead(c, self.slots)
            return sum(1 for i in range(self.slots) if c.load64(_owner(i)) == 0)

    def in_flight(self) -> int:
        with control_words(self._arr) as c:
            return sum(1 for i in range(self.slots) if c.load64(_owner(i)) & IN_QUEUE)

    def try_acquire(self) -> Slot | None:
        """A free slot now, or None."""
        r = self._take(_proc.self_ident())
        return None if r == -1 else Slot(self, r[0], r[1])

    def _take(self, me: int):
        """(index, state) of a slot now this process's, entered in _held in the same _native step; -1 if none was
        free. ValueError once close() began: no slot is claimed then, so that its close gives back all it held."""
        r = _native.pool_take(self, self._steps[0], self._steps[1], self.slots, me, next(self._next), self._held)
        if r == -1 and (self._closing or self._arr.closed):
            raise ValueError(f"pool {self.handle} is closed")
        return r

    def acquire(self, timeout: float | None = None) -> Slot:
        """A free slot, waiting at most timeout seconds (None: no limit); WaitTimeoutError if none came free."""
        timeout_ns = ns(timeout)
        me = _proc.self_ident()
        # a free slot now: one _native step, no clock read (the loop below takes the same way before each wait)
        r = self._take(me)
        if r != -1:
            return Slot(self, r[0], r[1])
        with control_words(self._arr) as c:
            wait = Wait(timeout_ns)
            look = time.monotonic_ns() + STUCK_LOOK_NANOS
            in_flight = None
            while True:
                seen = c.load32(D.POOL_SEQ_OFFSET)
                r = self._take(me)
                if r != -1:
                    break
                if wait.liveness_due() and reclaim_dead(c, self.slots) > 0:
                    continue
                if time.monotonic_ns() >= look:
                    # as ArrayPool.lookForDeadQueues: a slot in flight at two looks may be in a dead queue
                    now = {o for o in (c.load64(_owner(k)) for k in range(self.slots)) if o & IN_QUEUE}
                    if in_flight is not None and now & in_flight:
                        _sweep.maybe_start_for_pool()
                    in_flight = now
                    look = time.monotonic_ns() + STUCK_LOOK_NANOS
                if wait.expired():
                    queued = sum(1 for k in range(self.slots) if c.load64(_owner(k)) & IN_QUEUE)
                    raise WaitTimeoutError(f"no slot of pool {self.handle} came free within {timeout} s (all {self.slots}"
                                           f" are held: {queued} in queues, the rest by live processes)")
                wait.pause(c, D.POOL_SEQ_OFFSET, D.POOL_WAITERS_OFFSET, seen)
        return Slot(self, r[0], r[1])

    def _adopt(self, i: int, state: list | None = None) -> Slot:
        """The Slot of slot i, claimed with its state (None: the one its claim entered in _held)."""
        if state is None:
            state = self._held.get(i)
            if state is None:
                raise ValueError(f"pool {self.handle} is closed")  # its close gave the claimed slot back
        return Slot(self, i, state)

    def _move(self, i: int, frm: int, to: int) -> bool:
        with control_words(self._arr) as c:
            return move(c, i, frm, to)

    def _release_state(self, index: int, state: list, me: int) -> None:
        # the finalizer of a Slot (close() or garbage collection): at most once, in one _native step. In a
        # fork()ed child, a copy of the parent's Slot stops at the ident test; the child's own Pool.close passes
        # its own ident, and there slot_free's CAS on the owner word (which holds the parent's) frees nothing
        if _proc.self_ident() != me:
            return
        seg, owners, seq, waiters = self._steps
        if _native.slot_free(seg, owners + 8 * index, me, seq, waiters, state, self._held, index) < 0 \
                and _native.state_cas(state, 0, 2) and self._held.get(index) is state:
            del self._held[index]  # the pool was closed (no Slot is made on it now): its close gave the slot back

    def close(self) -> None:
        """Gives back the slots this instance holds and detaches. Idempotent."""
        if self._arr.closed:
            return
        self._closing = True  # from here no step adds to _held, so the slots given back below are all it holds
        me = _proc.self_ident()
        for index, state in list(self._held.items()):
            self._release_state(index, state, me)
        self._arr.close()

    def destroy(self) -> None:
        self._closing = True
        me = _proc.self_ident()
        for index, state in list(self._held.items()):
            self._release_state(index, state, me)
        self._arr.destroy()

    def __repr__(self) -> str:
        if self._arr.closed:
            return f"Pool({self.handle}, slots={self.slots}, closed)"
        return (f"Pool({self.handle}, slots={self.slots}, slot_shape={self.slot_shape}, dtype={self.dtype.str}, "
                f"free={self.free()})")


@atexit.register
def _close_at_exit() -> None:
    for p in list(_pools):
        try:
            if p._arr._seg.pid == _proc.self_pid():
                p.close()
        except Exception:
            pass
