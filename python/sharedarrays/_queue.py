"""Queue: the JVM's ArrayQueue (internal/sync/QueueProtocol.java), on the same words (PROTOCOL.md section 15).

A bounded multi-producer multi-consumer queue of array messages in an I64 segment. A pool Slot sent
moves (no copy: its owner word goes from the sender to "in flight at this position of this queue",
then to the receiver); any other shared array, or a numpy view of one, travels as its handle and
view geometry (offset, shape, strides in elements), which the receiver attaches once per queue
instance. Each step holds the queue's process mutex for one cell copy and first publishes a
complete cell a dead sender left past the tail; nothing is delivered twice, no slot is lost.
"""

from __future__ import annotations

import atexit
import fcntl
import secrets
import struct
import threading
import time
import weakref
from typing import Iterator, NamedTuple

import numpy as np

from . import _array, _mutex, _native, _proc
from ._array import SharedArray, attach as _attach, create as _create
from ._dead_queue import damaged, damaged_message, publish_dead_senders_cell
from ._dead_queue import pending as _pending
from ._errors import InvalidSegmentError, QueueAbandonedError, WaitTimeoutError
from ._format import data_length
from ._futex import SPIN_NANOS, Wait, Words
from ._layout import BY_CODE, MASK64, QueueDescriptor as Q, SegmentDescriptor as D
from ._pool import Pool, Slot, in_queue
from ._words import OnSegment, data_words, ns

LEFT = Q.LEFT & MASK64
POOL_SLOT = 1
VIEW = 2
_PENDING_TIMEOUT_NS = 1_000_000_000
_queues: "weakref.WeakSet[Queue]" = weakref.WeakSet()
_BODY = struct.Struct("<IIQQII")  # kind, ndim, id, index, dtype, handle length at CELL_KIND
_SLOW = object()  # what a short way returns when the step is the long way's


def words(capacity: int) -> int:
    return (Q.CELLS_OFFSET + Q.CELL_SIZE * capacity) // 8


class _Msg(NamedTuple):
    kind: int
    id: int
    index: int
    dtype: int
    shape: tuple
    strides: tuple
    handle: str
    sender: int
    position: int


class ArrayView:
    """A received view of a shared array (offset, shape and strides in elements); `.array` is its numpy view.

    The base array stays attached by the queue instance that received it (until that queue closes).
    close() only drops this object's reference.
    """

    def __init__(self, base: SharedArray, offset: int, shape: tuple, strides: tuple) -> None:
        self.base = base
        self.offset = offset
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        flat = base.array.reshape(-1)
        item = flat.itemsize
        self._array = np.lib.stride_tricks.as_strided(flat[offset:], self.shape, tuple(s * item for s in self.strides))

    @property
    def array(self) -> np.ndarray:
        if self._array is None:
            raise ValueError(f"view of {self.base.handle} is closed")
        return self._array

    @property
    def handle(self) -> str:
        return self.base.handle

    @property
    def dtype(self) -> np.dtype:
        return self.base.dtype

    @property
    def closed(self) -> bool:
        return self._array is None

    def close(self) -> None:
        self._array = None

    def __enter__(self) -> "ArrayView":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ArrayView({self.handle}, offset={self.offset}, shape={self.shape}, strides={self.strides})"


def _check_bounds(offset: int, shape, strides, count: int, what: str) -> None:
    if data_length(tuple(shape), 1) < 0:  # StridedLayout.within: strides of 0 repeat elements, so the product counts alone
        raise InvalidSegmentError(f"{what}: view shape {list(shape)} has a dimension below 1 or more elements than an array"
                                  " may have")
    lo = hi = offset
    for n, s in zip(shape, strides):
        if n < 1:
            raise InvalidSegmentError(f"{what}: shape {list(shape)} has a dimension below 1")
        lo += min(0, (n - 1) * s)
        hi += max(0, (n - 1) * s)
    if lo < 0 or hi >= count:
        raise InvalidSegmentError(f"{what}: view offset={offset} shape={list(shape)} strides={list(strides)} reaches "
                                  f"elements {lo}..{hi}, outside the array's 0..{count - 1}")


def _c_strides(shape) -> tuple:
    out = []
    s = 1
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


def _find_shared(v: np.ndarray) -> tuple[SharedArray, int, tuple]:
    """The open SharedArray a numpy view lies in, its offset and strides in elements."""
    addr = v.__array_interface__["data"][0]
    with _array._open_guard:
        arrays = list(_array._open)
    for a in arrays:
        if a.closed or a._array is None:
            continue
        base = a._array
        start = base.__array_interface__["data"][0]
        if not start <= addr < start + base.nbytes:
            continue
        item = base.itemsize
        if v.dtype != base.dtype:
            raise ValueError(f"the array is a {v.dtype} view of shared array {a.handle} of {base.dtype}; a queue sends views"
                             " of the array's own dtype")
        if (addr - start) % item or any(s % item for s in v.strides):
            raise ValueError(f"the view of {a.handle} is not aligned to its {item}-byte elements")
        return a, (addr - start) // item, tuple(s // item for s in v.strides)
    raise ValueError("the numpy array is not a view of an open shared array; a queue sends shared arrays, their views and"
                     " pool slots (create it with sa.create or take a slot of a sa.Pool)")


class Queue(OnSegment):
    """A bounded queue of arrays in shared memory that JVM and Python processes send to and receive from.

    send() of a pool Slot moves the slot (the Slot is closed); of a SharedArray, a numpy view of one or a
    received ArrayView, sends its handle and geometry. receive() returns a Slot or an ArrayView (both
    have .array and close()), None once end() was called and the queue is drained. A process registers
    as producer at its first send and consumer at its first receive: a receiver waiting on an empty
    queue whose registered producers all died (or a sender on a full queue whose consumers all died)
    gets QueueAbandonedError. Thread-safe; `with` closes it.
    """

    def __init__(self, arr: SharedArray, capacity: int) -> None:
        self._arr = arr
        self.capacity = capacity
        with data_words(arr) as w:
            self.tag = w.load64(Q.TAG_OFFSET)
        self._seg = arr._seg
        self._words = arr._seg.base + D.DATA_OFFSET
        self._in_queue = in_queue(self.tag, 0)  # the owner word of a slot in flight here, but its position
        self._pools: dict[int, Pool] = {}
        self._owners: dict[int, tuple] = {}  # pool id: (segment, owner words address, slots, held, Pool), for _native
        self._arrays: dict[int, SharedArray] = {}
        self._producer = -1
        self._consumer = -1
        self._guard = threading.Lock()
        self._closing = False
        _queues.add(self)

    @staticmethod
    def create(capacity: int, name: str | None = None, lifetime: str | None = None, backend: str | None = None) -> "Queue":
        """A new queue of `capacity` (1..65536) cells."""
        if not 1 <= capacity <= Q.MAX_CAPACITY:
            raise ValueError(f"a queue holds 1 to {Q.MAX_CAPACITY} messages, but capacity was {capacity}")
        tag = secrets.randbits(64)

        def init(base: int, size: int) -> None:
            w = Words(base + 4096)
            for p in range(capacity):
                w.store64(Q.CELLS_OFFSET + Q.CELL_SIZE * p + Q.CELL_POSITION, MASK64)
            w.store64(Q.CAPACITY_OFFSET, capacity)
            w.store64(Q.TAG_OFFSET, tag)
            w.store64(Q.MAGIC_OFFSET, Q.MAGIC)

        return Queue(_create(words(capacity), "i8", name=name, lifetime=lifetime, backend=backend, _init=init), capacity)

    @staticmethod
    def attach(handle) -> "Queue":
        arr = _attach(str(handle))
        try:
            cap = -1
            n = arr.shape[0]
            if arr.dtype.str == "<i8" and len(arr.shape) == 1 and n >= words(1):
                with data_words(arr) as w:
                    c = w.load64(Q.CAPACITY_OFFSET)
                    if w.load64(Q.MAGIC_OFFSET) == Q.MAGIC and 1 <= c <= Q.MAX_CAPACITY and n == words(c):
                        cap = c
            if cap < 0:
                raise InvalidSegmentError(f"{handle} is not an array queue: it is an array of {arr.dtype.str} {list(arr.shape)}"
                                          " without the queue's words")
            return Queue(arr, cap)
        except BaseException:
            arr.close()
            raise

    # ------------------------------------------------------------ facts

    @property
    def size(self) -> int:
        """Messages sent and not yet received (a snapshot)."""
        with data_words(self._arr) as w:
            head, tail = w.load64(Q.HEAD_OFFSET), w.load64(Q.TAIL_OFFSET)
            return 0 if damaged(head, tail, self.capacity) else tail - head

    def __len__(self) -> int:
        return self.size

    @property
    def ended(self) -> bool:
        with data_words(self._arr) as w:
            return w.load64(Q.ENDED_OFFSET) != 0

    @property
    def dropped(self) -> int:
        """Messages dropped because a process died mid-way (their slots went back to the pool)."""
        with data_words(self._arr) as w:
            return w.load64(Q.DROPPED_OFFSET)

    def _check_open(self) -> None:
        if self._closing or self._arr.closed:
            raise ValueError(f"queue {self.handle} is closed")

    # ------------------------------------------------------------ send

    def send(self, x, timeout: float | None = None) -> None:
        """Sends a Slot (moved), a SharedArray, an ArrayView or a numpy view of a shared array.

        Waits at most timeout seconds (None: no limit) for room; WaitTimeoutError if none came (or another
        process held the queue's mutex until then), nothing sent. RuntimeError once the queue has ended.
        """
        if timeout is not None and not timeout >= 0:
            ns(timeout)  # raises as every wait does; a valid timeout costs the short way one comparison
        if type(x) is Slot and self._producer >= 0 and self._send_slot(x):
            return
        if not self._send_long(x, ns(timeout)):
            raise WaitTimeoutError(f"queue {self.handle} stayed full ({self.capacity} messages) for {timeout} s")

    def try_send(self, x) -> bool:
        """Sends if there is room now and the mutex is free; never waits for another process."""
        return self._send(x, 0)

    def _message(self, x):
        """(kind, id, index, dtype code, shape, strides, handle, slot or None)."""
        if isinstance(x, Slot):
            if x.closed:
                raise ValueError(f"slot {x.index} of pool {x.pool.handle} is closed (given back or sent already)")
            et = _array._element_type(x.dtype)
            shape = x.shape
            return POOL_SLOT, x.pool.id, x.index, et.code, shape, _c_strides(shape), x.pool.handle, x
        if isinstance(x, Pool) or isinstance(x, Queue):
            raise TypeError(f"a queue sends arrays and pool slots, not a {type(x).__name__}")
        if isinstance(x, ArrayView):
            base, off, shape, strides = x.base, x.offset, x.shape, x.strides
        elif isinstance(x, SharedArray):
            base, off, shape = x, 0, x.shape
            strides = _c_strides(shape)
        elif isinstance(x, np.ndarray):
            base, off, strides = _find_shared(x)
            shape = x.shape
            if len(shape) == 0:
                raise ValueError("a 0-d view cannot be sent; send a 1-element view (a[i:i+1])")
        else:
            raise TypeError(f"a queue sends Slot, SharedArray, ArrayView or numpy views of shared arrays, not {type(x).__name__}")
        if base.closed:
            raise ValueError(f"array {base.handle} is closed")
        et = _array._element_type(base.dtype)
        return VIEW, base.id, off, et.code, tuple(shape), tuple(strides), base.handle, None

    def _send(self, x, timeout_ns: int | None) -> bool:
        return type(x) is Slot and self._producer >= 0 and self._send_slot(x) or self._send_long(x, timeout_ns)

    def _send_long(self, x, timeout_ns: int | None) -> bool:
        kind, aid, index, code, shape, strides, handle, slot = self._message(x)
        hb = handle.encode("utf-8")
        if len(hb) > Q.MAX_HANDLE_BYTES:
            raise ValueError(f"the handle {handle} is longer than {Q.MAX_HANDLE_BYTES} bytes, too long for a queue message;"
                             " use a shorter path or name")
        if not 1 <= len(shape) <= 8:
            raise ValueError(f"a message has 1 to 8 dimensions, not {len(shape)}")
        self._check_open()
        with data_words(self._arr) as w:
            self._register(w, True)
            mm = self._arr._seg.mm
            wait = None
            while True:
                if not _mutex.try_lock(w, Q.MUTEX_OFFSET):
                    wait = wait or Wait(timeout_ns)
                    if not self._lock(w, wait, timeout_ns, "send to"):
                        return False
                try:
                    self._publish_dead_senders_cell(w)
                    seen = w.load32(Q.TAKE_SEQ_OFFSET)
                    ended = w.load64(Q.ENDED_OFFSET)
                    if ended:
                        raise RuntimeError(f"queue {self.handle} has ended (pid {_proc.ident_pid(ended)} called end());"
                                           " nothing more can be sent")
                    tail = w.load64(Q.TAIL_OFFSET)
                    head = w.load64(Q.HEAD_OFFSET)
                    if damaged(head, tail, self.capacity):
                        raise InvalidSegmentError(damaged_message(self.handle, head, tail, self.capacity))
                    if tail - head < self.capacity:
                        if self._closing:
                            raise ValueError(f"queue {self.handle} is closing")
                        c = self._cell(tail)
                        self._write(mm, c, kind, aid, index, code, shape, strides, hb)
                        w.store64(c + Q.CELL_POSITION, tail)
                        # an exception out of the move leaves the cell complete: the next step publishes it, and its
                        # receiver delivers the slot if the move happened, else drops the message (a failed claim)
                        if slot is not None and not slot._move_to(in_queue(self.tag, tail)):
                            w.store64(c + Q.CELL_POSITION, MASK64)
                            raise RuntimeError(f"pool slot {slot.index} is not held by this process any more; it was closed"
                                               " or sent already")
                        w.store64(Q.TAIL_OFFSET, tail + 1)
                        w.bump(Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET)
                        return True
                finally:
                    _mutex.unlock(w, Q.MUTEX_OFFSET)
                wait = wait or Wait(timeout_ns)
                # each pass, not only the wait: a take word that another process keeps bumping ends no wait
                if wait.expired() or not self._wait_for_change(w, wait, Q.TAKE_SEQ_OFFSET, Q.TAKE_WAITERS_OFFSET, seen,
                                                               Q.CONSUMERS_OFFSET, "consumer", "full"):
                    return False

    def _send_slot(self, slot: Slot) -> bool:
        """The short way of a send (one _native call): True if sent; False leaves it to the long way."""
        if self._closing:
            return False
        me = _proc.self_ident()
        pool = slot.pool
        body = pool._cell_bodies.get(slot.index)
        if body is None or body[0] != me:
            if pool._arr.closed:
                return False
            body = (me, _cell_body(POOL_SLOT, pool.id, slot.index, _array._element_type(slot.dtype).code, slot.shape,
                                   _c_strides(slot.shape), pool.handle.encode("utf-8"), me),
                    pool._steps[0], pool._steps[1] + 8 * slot.index)
            pool._cell_bodies[slot.index] = body
        # queue_put tests and ends the slot's state itself (held -> sent) and drops it from the pool's held slots,
        # in one step for this process's other threads (the GIL held throughout)
        return _native.queue_put(self._seg, self._words, self.capacity, me, body[1], body[2], body[3], self._in_queue,
                                 slot._state, pool._held, slot.index) == 0

    def _cell(self, p: int) -> int:
        return Q.CELLS_OFFSET + Q.CELL_SIZE * (p % self.capacity)

    def _write(self, mm, c: int, kind, aid, index, code, shape, strides, hb: bytes) -> None:
        at = D.DATA_OFFSET + c
        body = _cell_body(kind, aid, index, code, shape, strides, hb, _proc.self_ident())
        mm[at + Q.CELL_KIND: at + Q.CELL_KIND + len(body)] = body

    def _read(self, w: Words, c: int, position: int) -> _Msg | None:
        if w.load64(c + Q.CELL_POSITION) != position:
            return None
        at = D.DATA_OFFSET + c + Q.CELL_KIND
        return _parse(self._arr._seg.mm[at: at + Q.CELL_HANDLE - Q.CELL_KIND + Q.MAX_HANDLE_BYTES], position)

    # ------------------------------------------------------------ receive

    def receive(self, timeout: float | None = None):
        """The next message: a Slot (this process owns it; close() gives it back) or an ArrayView; None once
        the queue has ended and is drained. WaitTimeoutError if nothing came within timeout seconds (None: no
        limit); QueueAbandonedError if the queue is empty and every registered producer died."""
        if timeout is None:
            timeout_ns, spin = None, SPIN_NANOS
        else:
            timeout_ns = ns(timeout)
            spin = timeout_ns if timeout_ns < SPIN_NANOS else SPIN_NANOS
        r = None
        if self._consumer >= 0 and not self._closing:
            # one _native step: a message waiting, or one that comes while it spins (the usual wait); the mapping
            # is not entered (the GIL keeps it, or, while it spins, an export of the mapping does)
            r = _native.queue_take(self, self._seg, self._words, self.capacity, _proc.self_ident(), self._in_queue,
                                   self._owners, spin)
            if type(r) is not int:
                return Slot(self._pools[r[1]], r[2], r[3]) if r[0] == POOL_SLOT else self._taken(r)
        self._check_open()
        with data_words(self._arr) as w:
            if self._consumer < 0:
                self._register(w, False)
            m, wait = self._take_short(w, timeout_ns, r, r is not None) if self._consumer >= 0 else (_SLOW, None)
            if m is _SLOW:
                m = self._take(w, timeout_ns, wait)
            elif m is not _TIMED_OUT:
                return m
        if m is _TIMED_OUT:
            raise WaitTimeoutError(f"no message on queue {self.handle} within {timeout} s")
        return None if m is None else self._resolve(m)

    def __iter__(self) -> Iterator:
        while True:
            m = self.receive()
            if m is None:
                return
            yield m

    def _take_short(self, w: Words, timeout_ns: int | None, r, spun: bool) -> tuple:
        """The short way of a receive: the message a _native step took, waiting (in C, then on the futex) while the
        queue is empty; (message, wait), or (_SLOW, wait) to leave the rest to the long way (a busy mutex, a pool
        not attached yet, a drop, the end, the producers' abandonment), which goes on with the same wait.
        r: what a first step returned, or None; spun: whether that step spun already."""
        me = _proc.self_ident()
        wait = None
        while not self._closing:
            if r is None:
                r = _native.queue_take(self, self._seg, self._words, self.capacity, me, self._in_queue, self._owners, 0)
            if type(r) is not int:
                return self._taken(r), wait
            if r < 0 or timeout_ns == 0:
                break
            seen, r = r, None
            if not spun:
                # the first wait, the usual one, spins in C before anything else (a Wait costs microseconds)
                spun = True
                if _native.spin_while(self._words + Q.PUT_SEQ_OFFSET, seen,
                                      SPIN_NANOS if timeout_ns is None else min(SPIN_NANOS, timeout_ns)):
                    continue
            wait = wait or Wait(timeout_ns, 0)  # no second spin: the one above was this wait's
            try:
                # each pass looks at the deadline, as the long way's
                if wait.expired() or not self._wait_for_change(w, wait, Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET, seen,
                                                               Q.PRODUCERS_OFFSET, "producer", "empty"):
                    return _TIMED_OUT, wait
            except QueueAbandonedError:
                break  # the long way looks once more under the mutex before it says so
        return _SLOW, wait

    def _taken(self, r: tuple):
        """The Slot or ArrayView of what _native.queue_take returned."""
        if r[0] == POOL_SLOT:
            return self._pools[r[1]]._adopt(r[2], r[3])
        m = _parse(r[2], r[1])
        if m is None:
            raise InvalidSegmentError(f"queue {self.handle}: a malformed message at {r[1]}")  # _native checked it
        return self._resolve(m)

    def _take(self, w: Words, timeout_ns: int | None, wait: Wait | None = None):
        me = _proc.self_ident()
        abandoned = None
        while True:
            if not _mutex.try_lock(w, Q.MUTEX_OFFSET):
                wait = wait or Wait(timeout_ns)
                if not self._lock(w, wait, timeout_ns, "receive from"):
                    return _TIMED_OUT
            try:
                self._publish_dead_senders_cell(w)
                seen = w.load32(Q.PUT_SEQ_OFFSET)
                while True:
                    head = w.load64(Q.HEAD_OFFSET)
                    tail = w.load64(Q.TAIL_OFFSET)
                    if damaged(head, tail, self.capacity):
                        raise InvalidSegmentError(damaged_message(self.handle, head, tail, self.capacity))
                    if head == tail:
                        break
                    if self._closing:
                        raise ValueError(f"queue {self.handle} is closing")
                    m = self._read(w, self._cell(head), head)
                    keep = m is not None and (m.kind != POOL_SLOT or self._claim(m, me))
                    w.store64(Q.HEAD_OFFSET, head + 1)
                    w.bump(Q.TAKE_SEQ_OFFSET, Q.TAKE_WAITERS_OFFSET)
                    if keep:
                        return m
                    w.fetch_add64(Q.DROPPED_OFFSET, 1)
                    # a run of dropped messages is bounded by capacity, and the deadline still holds
                    wait = wait or Wait(timeout_ns)
                    if wait.expired():
                        return _TIMED_OUT
                if w.load64(Q.ENDED_OFFSET) != 0:
                    return None
                if abandoned is not None:
                    raise abandoned
            finally:
                _mutex.unlock(w, Q.MUTEX_OFFSET)
            wait = wait or Wait(timeout_ns)
            try:
                # each pass, not only the wait: a put word that another process keeps bumping ends no wait
                if wait.expired() or not self._wait_for_change(w, wait, Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET, seen,
                                                               Q.PRODUCERS_OFFSET, "producer", "empty"):
                    return _TIMED_OUT
            except QueueAbandonedError as e:
                # every producer died, the last perhaps mid-send (slot moved, tail not yet advanced): one more
                # look under the mutex publishes such a cell before the queue counts as abandoned
                abandoned = e

    def _pool_of(self, m: _Msg, closing: bool = False) -> Pool:
        """The pool a message names, attached once; closing: for this queue's close(), which may attach one then."""
        pool = self._pools.get(m.id)
        if pool is not None and pool._closing and (closing or not self._closing):
            pool = None  # closed through one of its slots (slot.pool.close()): attached again
        if pool is None:
            if self._closing and not closing:
                raise ValueError(f"queue {self.handle} is closing")
            et = BY_CODE.get(m.dtype)
            pool = Pool.attach(m.handle, et.descr if et else None)
            if pool.id != m.id:
                pool.close()
                raise InvalidSegmentError(f"message names pool {m.handle} of id {m.id:016x}, which has id {pool.id:016x}")
            with self._guard:  # close() lists the pools under it: a pool is either listed and closed, or not attached
                if self._closing and not closing:
                    pool.close()
                    raise ValueError(f"queue {self.handle} is closing")
                self._pools[m.id] = pool
                self._owners[m.id] = (pool._steps[0], pool._steps[1], pool.slots, pool._held, pool)
        if not 0 <= m.index < pool.slots:
            raise InvalidSegmentError(f"message names slot {m.index} of pool {m.handle}, which has {pool.slots}")
        return pool

    def _claim(self, m: _Msg, me: int) -> bool:
        """Claims a message's slot for me, entering its Slot's state in the pool's held slots in the same _native
        step; False drops the message. ValueError (the message stays) once this queue's close() began."""
        for _ in range(2):
            try:
                pool = self._pool_of(m)
            except Exception:
                if self._closing:
                    raise ValueError(f"queue {self.handle} is closing") from None
                return False  # the pool is gone or not ours: the message cannot be delivered
            seg, owners = pool._steps[0], pool._steps[1]
            r = _native.slot_claim(pool, seg, owners + 8 * m.index, in_queue(self.tag, m.position), me, pool._held, m.index)
            if r >= 0:
                return r == 1
            if self._closing:
                raise ValueError(f"queue {self.handle} is closing")
            # the pool was closed meanwhile through one of its slots: _pool_of attaches it again
        raise ValueError(f"pool {m.handle} was closed while its slot was received; the message stays in queue {self.handle}")

    def _resolve(self, m: _Msg):
        if m.kind == POOL_SLOT:
            return self._pool_of(m)._adopt(m.index)
        base = self._arrays.get(m.id)
        if base is None or base.closed:
            base = _attach(m.handle)
            if base.id != m.id:
                base.close()
                raise InvalidSegmentError(f"message names array {m.handle} of id {m.id:016x}, which has id {base.id:016x}")
            self._arrays[m.id] = base
        et = _array._element_type(base.dtype)
        if et.code != m.dtype:
            raise InvalidSegmentError(f"message names a {BY_CODE.get(m.dtype)} view of {m.handle}, which holds {et.name}")
        count = int(np.prod(base.shape))
        _check_bounds(m.index, m.shape, m.strides, count, f"message of {m.handle}")
        return ArrayView(base, m.index, m.shape, m.strides)

    # ------------------------------------------------------------ waiting, peers, repair

    def _lock(self, w: Words, wait: Wait, timeout_ns: int | None, what: str) -> bool:
        holder = _mutex.lock(w, Q.MUTEX_OFFSET, wait)
        if holder == 0:
            return True
        if timeout_ns == 0:
            return False
        raise WaitTimeoutError(f"could not {what} queue {self.handle} within {timeout_ns / 1e9:g} s: its lock is held by "
                               f"{_proc.describe(holder)}. Nothing was done; the call may be repeated")

    def _publish_dead_senders_cell(self, w: Words) -> None:
        publish_dead_senders_cell(w, self.capacity)

    def _wait_for_change(self, w: Words, wait: Wait, seq: int, waiters: int, seen: int, peers: int, who: str,
                         state: str) -> bool:
        while w.load32(seq) == seen:
            if wait.expired():
                return False
            if self._closing:
                raise ValueError(f"queue {self.handle} is closing")
            if wait.liveness_due():
                self._check_peers(w, peers, who, state)
            wait.pause(w, seq, waiters, seen)
        return True

    def _check_peers(self, w: Words, base: int, who: str, state: str) -> None:
        dead = []
        for i in range(Q.MAX_PEERS):
            v = w.load64(base + 8 * i)
            if v == 0 or v & LEFT:
                continue
            if _proc.ident_alive(v):
                return
            dead.append(_proc.ident_pid(v))
        if dead:
            tail = "; nothing more will arrive" if state == "empty" else "; no one will take"
            raise QueueAbandonedError(f"queue {self.handle} is {state} and every registered {who} died (pids {dead}){tail}."
                                      " Restart them, or end() the queue when the work is done", dead)

    def _register(self, w: Words, producer: bool) -> None:
        with self._guard:
            if (self._producer if producer else self._consumer) >= 0:
                return
            base = Q.PRODUCERS_OFFSET if producer else Q.CONSUMERS_OFFSET
            me = _proc.self_ident()
            got = -1
            for pass_ in range(2):
                for i in range(Q.MAX_PEERS):
                    v = w.load64(base + 8 * i)
                    free = v == 0 or (pass_ == 1 and (v & LEFT or not _proc.ident_alive(v)))
                    if free and w.cas64(base + 8 * i, v, me):
                        got = i
                        break
                if got >= 0:
                    break
            if producer:
                self._producer = got
            else:
                self._consumer = got

    # ------------------------------------------------------------ end, close

    def end(self) -> None:
        """No more messages: later sends raise, receivers drain what is left and then get None. Idempotent."""
        self._check_open()
        with data_words(self._arr) as w:
            _end(w)

    def _leave(self, w: Words) -> None:
        me = _proc.self_ident()
        if self._arr.owner and self._arr.lifetime == "owner":
            _end(w)
        for i, base in ((self._producer, Q.PRODUCERS_OFFSET), (self._consumer, Q.CONSUMERS_OFFSET)):
            if i >= 0:
                w.cas64(base + 8 * i, me, me | LEFT)

    def _sole_user(self) -> bool:
        seg = self._arr._seg
        if seg.path is None:
            return False
        try:
            fcntl.flock(seg.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            sole = True
        except BlockingIOError:
            sole = False
        fcntl.flock(seg.fd, fcntl.LOCK_SH)
        return sole

    def _free_pending_slots(self, w: Words) -> None:
        if not _mutex.try_lock(w, Q.MUTEX_OFFSET):
            if _mutex.lock(w, Q.MUTEX_OFFSET, Wait(_PENDING_TIMEOUT_NS)) != 0:
                return
        try:
            pending = [self._read(w, self._cell(m.position), m.position) for m in _pending(w, self.capacity)]
        finally:
            _mutex.unlock(w, Q.MUTEX_OFFSET)
        give_up = time.monotonic_ns() + _PENDING_TIMEOUT_NS  # a second for all: an attach may wait for a lock
        unreachable = set()  # pools (by id) that could not be attached: tried once
        for m in pending:
            if time.monotonic_ns() > give_up:
                return  # what is left stays in flight until its pool goes
            if m is None or m.kind != POOL_SLOT or m.id in unreachable:
                continue
            try:
                self._pool_of(m, closing=True)._move(m.index, in_queue(self.tag, m.position), 0)
            except Exception:
                if m.id not in self._pools:
                    unreachable.add(m.id)  # the pool is gone or not ours: its slots went with it

    def close(self) -> None:
        """Lets go of the queue: leaves as producer/consumer; the creator of an "owner" queue also ends it; the
        last process to have it open frees the pool slots of messages no one received. Slots received through
        this instance and not closed are given back. Idempotent."""
        with self._guard:
            if self._arr.closed or self._closing:
                return
            self._closing = True
        if self._arr._seg.pid == _proc.self_pid():
            # (a fork()ed child's copy only lets go of its mapping: the registrations, the end and the flock
            # on the shared open file description are its parent's)
            try:
                with data_words(self._arr) as w:
                    self._leave(w)
                    if self._sole_user():
                        self._free_pending_slots(w)
            except ValueError:
                pass
        with self._guard:
            pools = list(self._pools.values())
        for p in pools:
            p.close()
        for a in self._arrays.values():
            a.close()
        self._arr.close()

    def __repr__(self) -> str:
        if self._arr.closed:
            return f"Queue({self.handle}, capacity={self.capacity}, closed)"
        return f"Queue({self.handle}, capacity={self.capacity}, size={self.size}{', ended' if self.ended else ''})"


_TIMED_OUT = object()


def _cell_body(kind: int, aid: int, index: int, code: int, shape, strides, hb: bytes, sender: int) -> bytes:
    """A cell from CELL_KIND on: every field but the position (shape and strides entries past ndim are 0)."""
    n = len(shape)
    pad = bytes(8 * (8 - n))
    return b"".join((_BODY.pack(kind, n, aid & MASK64, index & MASK64, code, len(hb)), struct.pack(f"<{n}Q", *shape), pad,
                     struct.pack(f"<{n}q", *strides), pad, struct.pack("<Q", sender),
                     bytes(Q.CELL_HANDLE - Q.CELL_SENDER - 8), hb))


def _parse(body, position: int) -> _Msg | None:
    """The message of a cell body (from CELL_KIND on); None if malformed."""
    kind, ndim, aid, index, code, hlen = _BODY.unpack_from(body, 0)
    if kind not in (POOL_SLOT, VIEW) or not 1 <= ndim <= 8 or hlen > Q.MAX_HANDLE_BYTES:
        return None
    shape = struct.unpack_from(f"<{ndim}Q", body, Q.CELL_SHAPE - Q.CELL_KIND)
    strides = struct.unpack_from(f"<{ndim}q", body, Q.CELL_STRIDES - Q.CELL_KIND)
    (sender,) = struct.unpack_from("<Q", body, Q.CELL_SENDER - Q.CELL_KIND)
    at = Q.CELL_HANDLE - Q.CELL_KIND
    handle = bytes(body[at: at + hlen]).decode("utf-8", "replace")
    return _Msg(kind, aid, index, code, shape, strides, handle, sender, position)


def _end(w: Words) -> None:
    w.cas64(Q.ENDED_OFFSET, 0, _proc.self_ident())
    w.bump(Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET)
    w.bump(Q.TAKE_SEQ_OFFSET, Q.TAKE_WAITERS_OFFSET)


@atexit.register
def _close_at_exit() -> None:
    for q in list(_queues):
        try:
            if q._arr._seg.pid == _proc.self_pid():
                q.close()
        except Exception:
            pass
