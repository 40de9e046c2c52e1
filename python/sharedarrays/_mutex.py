"""The process mutex of a queue (internal/sync/ProcessMutex.java, PROTOCOL.md section 14).

offset +0 holder u64 (ident, 0 if free)   +8 seq u32 (futex word, +1 per unlock)   +12 waiters u32
A dead holder is taken over by the next contender within a slice; a live one never is: a wait
gives up at its deadline, reporting the holder.
"""

from __future__ import annotations

from . import _proc
from ._futex import Wait, Words

TRY_SPINS = 200


def try_lock(w: Words, off: int) -> bool:
    return w.cas64(off, 0, _proc.self_ident())


def lock(w: Words, off: int, wait: Wait) -> int:
    """Takes the mutex by wait's deadline; 0 once held, else the ident of the live holder when time ran out."""
    me = _proc.self_ident()
    for _ in range(TRY_SPINS):
        if w.load64(off) == 0 and w.cas64(off, 0, me):
            return 0
    last = 0  # the last holder seen: what a wait that ran out reports
    while True:
        seen = w.load32(off + 8)
        holder = w.load64(off)
        if holder == 0:
            if w.cas64(off, 0, me):
                return 0
            # taken between the load and the CAS: a word that keeps changing must not outlast the deadline
            last = w.load64(off) or last
            if wait.expired() and last:
                return last
            continue
        last = holder
        expired = wait.expired()
        # a last look before giving up: a dead holder is taken over even by a zero wait
        if (wait.liveness_due() or expired) and not _proc.ident_alive(holder):
            if w.cas64(off, holder, me):
                return 0
            now = w.load64(off)
            if expired and now:
                return now  # another contender took it first; a word cycling through dead idents ends here too
            continue
        if expired:
            return holder
        wait.pause(w, off + 8, off + 12, seen)


def unlock(w: Words, off: int) -> None:
    w.store64(off, 0)
    w.bump(off + 8, off + 12)
