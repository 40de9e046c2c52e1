"""Frees the pool slots in flight in a queue that a sweep removes while no process has it open (DeadQueueSlots.java).

PROTOCOL.md section 15.7: if a live process holds the queue's mutex, nothing is done (the words are a
copy of a queue in use); else the mutex is taken (at most 1 s; a dead holder is taken over), a
complete cell a dead sender left at the tail is published, and for every complete kind-1 message
from head to tail the pool its handle names is attached (its id checked) and the slot freed with
CAS(owner, inQueue(tag, position) -> 0), bumping the pool's seq. A slot freed already, or taken
since, is left alone. This module reads only what that needs; the full queue is _queue's.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import time
from typing import NamedTuple

from . import _mutex, _native, _proc, _segment
from ._futex import Wait, Words
from ._layout import QueueDescriptor as Q
from ._layout import SegmentDescriptor as D

IN_QUEUE = 1 << 63
_TAG_MASK = (1 << 31) - 1
_KIND_POOL_SLOT = 1
_KIND_VIEW = 2
_UNUSED_QUEUE_TIMEOUT_NS = 1_000_000_000


class Pending(NamedTuple):
    """A message still in a queue: what freeing its slot needs."""

    position: int
    kind: int
    id: int
    index: int
    handle: str


def in_queue(tag: int, position: int) -> int:
    """PoolProtocol.inQueue: the owner word of a slot in flight as message `position` of the queue of `tag`."""
    return IN_QUEUE | (tag & _TAG_MASK) << 32 | (position & 0xFFFFFFFF)


def capacity(w: Words, elements: int) -> int:
    """QueueProtocol.capacity, from the mapped words; -1 if they hold no queue."""
    if elements < (Q.CELLS_OFFSET + Q.CELL_SIZE) // 8 or w.load64(Q.MAGIC_OFFSET) != Q.MAGIC:
        return -1
    c = w.load64(Q.CAPACITY_OFFSET)
    return c if 1 <= c <= Q.MAX_CAPACITY and elements == (Q.CELLS_OFFSET + Q.CELL_SIZE * c) // 8 else -1


def damaged(head: int, tail: int, cap: int) -> bool:
    """QueueProtocol.damaged: words (read unsigned) no queue of capacity cap can have; a queue has
    0 <= head <= tail <= head + cap, head below 2**63 (Java reads the words signed). Every loop from head
    to tail is bounded by cap only because of this check."""
    return head >> 63 != 0 or tail >> 63 != 0 or tail < head or tail - head > cap


def damaged_message(where: str, head: int, tail: int, cap: int) -> str:
    return (f"queue {where} is damaged: head {_signed(head)} and tail {_signed(tail)} for a capacity of {cap} (a queue has"
            " 0 <= head <= tail <= head + capacity); remove it with sharedarrays rm --force and create it again")


def _signed(v: int) -> int:
    return v - (1 << 64) if v >> 63 else v


def publish_dead_senders_cell(w: Words, cap: int) -> None:
    """QueueProtocol.publishDeadSendersCell, under the mutex: a complete cell past the tail means its sender
    died after writing it; publish it."""
    tail = w.load64(Q.TAIL_OFFSET)
    head = w.load64(Q.HEAD_OFFSET)
    if not damaged(head, tail, cap) and tail - head < cap and w.load64(_cell(tail, cap) + Q.CELL_POSITION) == tail:
        w.store64(Q.TAIL_OFFSET, tail + 1)
        w.bump(Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET)


def _cell(position: int, cap: int) -> int:
    return Q.CELLS_OFFSET + Q.CELL_SIZE * (position % cap)


def _unlock(w: Words) -> None:
    w.store64(Q.MUTEX_OFFSET, 0)
    w.bump(Q.MUTEX_OFFSET + 8, Q.MUTEX_OFFSET + 12)


def pending_of_unused_queue(w: Words, cap: int) -> list[Pending]:
    """QueueProtocol.pendingOfUnusedQueue: pending(), read under the mutex."""
    holder = w.load64(Q.MUTEX_OFFSET)
    if holder != 0 and _proc.ident_alive(holder):
        return []
    if not (_mutex.try_lock(w, Q.MUTEX_OFFSET) or _mutex.lock(w, Q.MUTEX_OFFSET, Wait(_UNUSED_QUEUE_TIMEOUT_NS)) == 0):
        return []  # another process took the queue meanwhile: it is in use after all
    try:
        return pending(w, cap)
    finally:
        _unlock(w)


def pending(w: Words, cap: int) -> list[Pending]:
    """QueueProtocol.pending, the mutex held: the complete messages from head to tail; if head and tail are
    damaged they name no range, and then every complete cell (at most cap). Freeing a slot compares its owner
    word with "in flight at this position", so only slots still in flight here go back either way."""
    publish_dead_senders_cell(w, cap)
    head, tail = w.load64(Q.HEAD_OFFSET), w.load64(Q.TAIL_OFFSET)
    if damaged(head, tail, cap):
        positions = (w.load64(_cell(i, cap) + Q.CELL_POSITION) for i in range(cap))
        positions = [p for i, p in enumerate(positions) if p >> 63 == 0 and p % cap == i]
    else:
        positions = range(head, tail)
    out = []
    for p in positions:
        m = _read(w, _cell(p, cap), p)
        if m is not None:
            out.append(m)
    return out


def _read(w: Words, c: int, position: int) -> Pending | None:
    if w.load64(c + Q.CELL_POSITION) != position:
        return None
    kind = w.load32(c + Q.CELL_KIND)
    ndim = w.load32(c + Q.CELL_NDIM)
    n = w.load32(c + Q.CELL_HANDLE_LENGTH)
    if kind not in (_KIND_POOL_SLOT, _KIND_VIEW) or not 1 <= ndim <= 8 or n > Q.MAX_HANDLE_BYTES:
        return None
    raw = ctypes.string_at(w.base + c + Q.CELL_HANDLE, n)  # a plain read, after the position word's load
    index = w.load64(c + Q.CELL_INDEX)
    index = index - (1 << 64) if index >= 1 << 63 else index
    return Pending(position, kind, w.load64(c + Q.CELL_ID), index, raw.decode("utf-8", "replace"))


def free_slots(fd: int, data_length: int) -> int:
    """Frees the slots in flight in the queue open (exclusively) at fd; how many were freed. Never raises."""
    try:
        if os.fstat(fd).st_size < D.DATA_OFFSET + data_length:
            return 0  # shrunk since it was read: what it held is gone
        # /proc/self/fd/<fd> opens the very file fd has locked; the new descriptor takes no flock
        rw = os.open(f"/proc/self/fd/{fd}", os.O_RDWR | os.O_CLOEXEC)
        try:
            mm = mmap.mmap(rw, data_length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=D.DATA_OFFSET)
        finally:
            os.close(rw)
        try:
            return _free(mm, data_length)
        finally:
            mm.close()
    except Exception:
        return 0  # a removal never fails for it: the segment goes all the same


def _free(mm: mmap.mmap, data_length: int) -> int:
    w = Words(_native.address(mm))
    cap = capacity(w, data_length // 8)
    if cap < 0:
        return 0
    tag = w.load64(Q.TAG_OFFSET)
    pools: dict = {}  # by id: one pool attached, or tried, once
    freed = 0
    give_up = time.monotonic_ns() + _UNUSED_QUEUE_TIMEOUT_NS  # a second for all: an attach may wait for a lock
    try:
        for m in pending_of_unused_queue(w, cap):
            if time.monotonic_ns() > give_up:
                break  # what is left stays in flight until its pool goes
            if m.kind != _KIND_POOL_SLOT:
                continue
            if m.id not in pools:
                try:
                    pools[m.id] = _segment.attach_handle(m.handle)
                except Exception:
                    pools[m.id] = None  # gone, not ours, not a handle: its slots are not ours to free
            pool = pools[m.id]
            if pool is None or pool.facts.id != m.id:
                continue
            c = pool.words
            slots = c.load32(D.POOL_SLOTS_OFFSET) if c.load64(D.POOL_MAGIC_OFFSET) == D.POOL_MAGIC else -1
            if 1 <= slots <= D.POOL_MAX_SLOTS and pool.facts.shape[0] == slots and 0 <= m.index < slots:
                if c.cas64(D.POOL_OWNERS_OFFSET + 8 * m.index, in_queue(tag, m.position), 0):
                    c.bump(D.POOL_SEQ_OFFSET, D.POOL_WAITERS_OFFSET)
                    freed += 1
    finally:
        for pool in pools.values():
            if pool is not None:
                try:
                    pool.close()
                except Exception:
                    pass
    return freed
