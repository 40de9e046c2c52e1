"""The program Python peer processes run in cross-process tests (pytest's and the JVM's PythonPeerTest).

Commands (first argument); lines on stdout, flushed:
  create <TYPE> <n> <seed> [lifetime] [backend]   create, write pattern(seed), print HANDLE <h>; then on stdin
                                                  `check <seed>` prints SEEN <checksum>, `exit` closes and ends
  attach <handle> <seed>                          attach, print SEEN <checksum>, write pattern(seed), print WROTE
  count <handle> <n>                              n times: element 0 += 1 under the write lock; print DONE
  hold-write <handle>                             take the write lock, print WRITING, sleep until killed
  lock-write <handle> <timeout s>                 print BEFORE <recoveries>, take the write lock, print
                                                  TOOK <ms> RECOVERIES <n> WRITER <pid>, write -1 to every element
  attach-hold <handle>                            attach, print ATTACHED; close at a line on stdin, print CLOSED
  await-change <handle> <last> <timeout s>        print WAITING, then CHANGED <count>
  hold-read <handle>                              take the read lock, print READING, sleep until killed
  ls                                              print SEGMENT <handle> <dtype> <lifetime> <kind> <creator pid>
                                                  <attached pids, comma-separated or ->, for each of sa.ls(), then END
  layout                                          print CONST <Class.NAME> <value> for each constant of _layout's
                                                  descriptor classes, TYPE <NAME> <code> <descr> <item size> for
                                                  each element type, then END
Queue, pool and barrier commands: see stream_peer.py.
TYPE is a Java DType name (F64, I8, BOOL, ...). Errors print ERROR <class> <message> and exit 3.
"""

import sys
import time

import numpy as np

import sharedarrays as sa
from sharedarrays import _layout
from sharedarrays._layout import ELEMENT_TYPES


def out(*parts) -> None:
    print(*parts, flush=True)


def dtype_of(name: str) -> str:
    for t in ELEMENT_TYPES:
        if t.name == name.upper() or t.descr == name:
            return t.descr
    raise ValueError(f"unknown dtype {name}")


def pattern(n: int, seed: int) -> np.ndarray:
    """Patterns.value of Child.kt: (seed * 31 + i * 7) % 100."""
    return (seed * 31 + np.arange(n, dtype=np.int64) * 7) % 100


def write(a: sa.SharedArray, seed: int) -> None:
    flat = a.array.reshape(-1)
    flat[...] = pattern(flat.size, seed).astype(a.dtype)


def checksum(a: sa.SharedArray) -> int:
    """Patterns.checksum: sum of element(i) * (i + 1), BOOL as 0 or 1."""
    flat = a.array.reshape(-1).astype(np.int64)
    return int((flat * np.arange(1, flat.size + 1, dtype=np.int64)).sum())


def answer_checks(a) -> None:
    """Until stdin says `exit` (or ends): a `check` line prints SEEN <checksum of a>."""
    for line in sys.stdin:
        parts = line.split()
        if parts and parts[0] == "check":
            out("SEEN", checksum(a))
        elif parts and parts[0] == "exit":
            break


def main(args: list[str]) -> None:
    cmd = args[0]
    import lifecycle_peer  # sweep, exit, collection, memfd passing, fill levels: commands listed in its docstring

    if cmd in lifecycle_peer.COMMANDS:
        return lifecycle_peer.main(args)
    if cmd == "create":
        lifetime = args[4] if len(args) > 4 else "owner"
        backend = args[5] if len(args) > 5 else "shm"
        with sa.create(int(args[2]), dtype_of(args[1]), lifetime=lifetime, backend=backend) as a:
            write(a, int(args[3]))
            out("HANDLE", a.handle)
            answer_checks(a)
        out("CLOSED")
    elif cmd == "attach":
        with sa.attach(args[1]) as a:
            out("SEEN", checksum(a))
            write(a, int(args[2]))
            out("WROTE")
    elif cmd == "count":
        with sa.attach(args[1]) as a:
            arr = a.array
            for _ in range(int(args[2])):
                with a.write_lock():
                    arr[0] += 1
            out("DONE")
    elif cmd == "hold-write":
        a = sa.attach(args[1])
        with a.write_lock():
            out("WRITING")
            while True:
                time.sleep(60)
    elif cmd == "lock-write":
        with sa.attach(args[1]) as a:
            out("BEFORE", a.lock_status().recoveries)
            t0 = time.monotonic()
            with a.write_lock(timeout=float(args[2])):
                took = int((time.monotonic() - t0) * 1000)
                a.array[...] = -1 if a.dtype.kind in "if" else 1
                st = a.lock_status()
                out("TOOK", took, "RECOVERIES", st.recoveries, "WRITER", st.writer_pid)
    elif cmd == "attach-hold":
        with sa.attach(args[1]):
            out("ATTACHED")
            sys.stdin.readline()
        out("CLOSED")
    elif cmd == "await-change":
        with sa.attach(args[1]) as a:
            out("WAITING")
            out("CHANGED", a.await_change(int(args[2]), float(args[3])))
    elif cmd == "hold-read":
        a = sa.attach(args[1])
        with a.read_lock():
            out("READING")
            while True:
                time.sleep(60)
    elif cmd == "ls":
        for i in sa.ls():
            out("SEGMENT", i.handle, i.dtype, i.lifetime, i.kind, i.creator.pid, ",".join(str(p.pid) for p in i.attached) or "-")
        out("END")
    elif cmd == "layout":
        for cls in (_layout.SegmentDescriptor, _layout.QueueDescriptor, _layout.BarrierDescriptor, _layout.PoolProtocol):
            for k, v in vars(cls).items():
                if k.isupper():
                    out("CONST", f"{cls.__name__}.{k}", v)
        for t in ELEMENT_TYPES:
            out("TYPE", t.name, t.code, t.descr, t.item_size)
        out("END")
    else:
        import stream_peer  # queues, pools and barriers: commands listed in its docstring

        if not stream_peer.main(args):
            raise ValueError(f"unknown peer command {cmd}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as e:  # reported on stdout for the driving test
        out("ERROR", type(e).__name__, str(e).replace("\n", " "))
        sys.exit(3)
