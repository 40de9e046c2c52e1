"""Lifecycle commands of the Python peer (sweep, exit and collection, memfd passing, ls fill levels); peer.py runs them.

  hold-create <k> <n> [lifetime] [backend]        create k F64 arrays of n elements, print HANDLE <h> and PATH <p>
                                                  for each, then READY; sleep until killed
  leak <lifetime>                                 create an F64 array and attach it again, print HANDLE <h> and
                                                  PATH <p>; exit normally without close()
  sweep [dry]                                     print REMOVED <path> for each path sa.sweep() removed, then END
  ls-fill                                         print FILL <handle> <fill> for each of sa.ls(), then END
  serve <socket> <TYPE> <n> <seed>                create a memfd array, write pattern(seed), serve it, print
                                                  SERVING <handle>; `check` prints SEEN <checksum>, `exit` ends
  receive <socket> <seed>                         receive the array served there, print SEEN <checksum> and
                                                  HANDLE <h>, write pattern(seed), print WROTE
  queue-with-slots <pool handle> <k>              create a queue (capacity 16) whose first k messages hold slots
                                                  0..k-1 of the pool (in flight, as a sender leaves them), print
                                                  QUEUE <handle> PATH <path>; sleep until killed
"""

import sys
import time

import sharedarrays as sa
from peer import answer_checks, checksum, dtype_of, out, write

_kept = []
COMMANDS = ("hold-create", "leak", "sweep", "ls-fill", "serve", "receive", "queue-with-slots")


def main(args: list[str]) -> None:
    cmd = args[0]
    if cmd == "hold-create":
        lifetime = args[3] if len(args) > 3 else "owner"
        backend = args[4] if len(args) > 4 else "shm"
        held = [sa.create(int(args[2]), "f8", lifetime=lifetime, backend=backend) for _ in range(int(args[1]))]
        for a in held:
            out("HANDLE", a.handle)
            out("PATH", a.path)
        out("READY")
        while True:
            time.sleep(60)
    elif cmd == "leak":
        a = sa.create(10, "f8", lifetime=args[1])
        _kept.extend([a, sa.attach(a.handle)])  # referenced until exit: closing them is exit's (atexit) work
        out("HANDLE", a.handle)
        out("PATH", a.path)
    elif cmd == "sweep":
        for p in sa.sweep(dry_run=len(args) > 1 and args[1] == "dry"):
            out("REMOVED", p)
        out("END")
    elif cmd == "ls-fill":
        for i in sa.ls():
            out("FILL", i.handle, i.fill)
        out("END")
    elif cmd == "serve":
        with sa.create(int(args[3]), dtype_of(args[2]), backend="memfd") as a:
            write(a, int(args[4]))
            with sa.serve(a, args[1]):
                out("SERVING", a.handle)
                answer_checks(a)
        out("CLOSED")
    elif cmd == "receive":
        with sa.receive(args[1]) as a:
            out("SEEN", checksum(a))
            out("HANDLE", a.handle)
            write(a, int(args[2]))
            out("WROTE")
    elif cmd == "queue-with-slots":
        q = queue_with_slots(args[1], int(args[2]))
        out("QUEUE", q.handle)
        out("PATH", q.path)
        while True:
            time.sleep(60)
    else:
        raise ValueError(f"unknown lifecycle command {cmd}")


def queue_with_slots(pool_handle: str, k: int, capacity: int = 16) -> sa.SharedArray:
    """A queue (the words of PROTOCOL.md section 15) holding k kind-1 messages: slots 0..k-1 of the pool, in flight."""
    import secrets
    import struct

    from sharedarrays import _proc
    from sharedarrays._dead_queue import in_queue
    from sharedarrays._layout import QueueDescriptor as Q
    from sharedarrays._layout import SegmentDescriptor as D

    pool = sa.attach(pool_handle)
    q = sa.create((Q.CELLS_OFFSET + Q.CELL_SIZE * capacity) // 8, "i8")
    mm = q._seg.mm
    w = q._seg.words.__class__(q._seg.base + D.DATA_OFFSET)
    for c in range(capacity):
        w.store64(Q.CELLS_OFFSET + Q.CELL_SIZE * c + Q.CELL_POSITION, -1)
    tag = secrets.randbits(64)
    w.store64(Q.CAPACITY_OFFSET, capacity)
    w.store64(Q.TAG_OFFSET, tag)
    w.store64(Q.MAGIC_OFFSET, Q.MAGIC)
    h = pool.handle.encode()
    for t in range(k):
        c = D.DATA_OFFSET + Q.CELLS_OFFSET + Q.CELL_SIZE * t
        struct.pack_into("<IIQQII", mm, c + Q.CELL_KIND, 1, 1, pool.id, t, pool._seg.facts.etype.code, len(h))
        struct.pack_into("<Q", mm, c + Q.CELL_SHAPE, pool.shape[1])
        struct.pack_into("<q", mm, c + Q.CELL_STRIDES, 1)
        struct.pack_into("<Q", mm, c + Q.CELL_SENDER, _proc.self_ident())
        mm[c + Q.CELL_HANDLE: c + Q.CELL_HANDLE + len(h)] = h
        w.store64(Q.CELLS_OFFSET + Q.CELL_SIZE * t + Q.CELL_POSITION, t)
        assert pool._seg.words.cas64(D.POOL_OWNERS_OFFSET + 8 * t, 0, in_queue(tag, t))
        w.store64(Q.TAIL_OFFSET, t + 1)
    pool.close()
    return q

