"""peer.py's commands for queues, pools and barriers (pytest's and the JVM's PythonStreamTest).

Messages carry numbers: a slot or view filled with `producer * 1_000_000 + k` is message k of producer.
  produce <pool> <queue> <producer> <n> [end]     n times: acquire a slot, fill it, send it; print DONE
                                                  (then end() the queue if `end` is given)
  produce-views <array> <queue> <n>               send n views a.array[k % rows, ::-1] of a 2-d shared array
                                                  (a row reversed: a negative stride); print DONE
  produce-mixed <queue> <n>                       create a pool (4 slots of 8 i8, print POOL <handle>) and an
                                                  i8 array (4, 8) with a[r, c] = r * 1000 + c; message k is
                                                  slot value(1, k) or, if k % 3 == 2, the view a[k % 4, ::-1];
                                                  print DONE, end() the queue, close all at a line on stdin
  consume <queue> [hold]                          for each message: print GOT <value of element 0> <kind>
                                                  <sum>, close it (unless `hold`: then print HOLDING and sleep);
                                                  print END <count> when the queue ended
  double <queue in> <queue out>                   attach both, print ATTACHED; for each message (a slot): double it
                                                  in place, send it on <queue out>; print END <count> at the end of <queue in>
  send-loop <pool> <queue>                        forever: acquire, fill with k, send; print SENT k every 50
  hold-slot <pool>                                acquire a slot, print HOLDING <index>, sleep until killed
  hold-mutex <queue>                              take the queue's mutex, print HOLDING, sleep until killed
  receive-until-abandoned <queue>                 receive (closing) until QueueAbandonedError: print ABANDONED <pids>
  receive-increasing <queue> <pool>               receive slots (closing) until QueueAbandonedError, checking that
                                                  element 0 strictly increases (print DISORDER <prev> <k> if not):
                                                  print ABANDONED <pids> <count> <last k>, then FREE <pool.free()>
  acquire <pool|new> <timeout s>                  attach the pool (`new`: create an f8 pool of 2 slots of 4, print
                                                  POOL <handle>), print READY; at a line on stdin print FREE <n>,
                                                  acquire(timeout) and print ACQUIRED <index> <ms> (or TIMEOUT <ms>);
                                                  close all at a line on stdin, print CLOSED
  queue-ops <queue> <pool>                        attach both (an f8 pool), print READY, then per line on stdin:
                                                  `receive <timeout s>` prints GOT <element 0> <ms> (closing it) or
                                                  TIMEOUT <ms> <message>; `send <v>` acquires a slot, fills it with
                                                  v, sends it (timeouts 5 s) and prints SENT <ms>; `exit` closes
  own-queue-barrier                               create a queue (capacity 4) and a barrier of 2 parties, print
                                                  QUEUE <handle> and BARRIER <handle>, register, receive one
                                                  message (print GOT <sum>), wait at the barrier (print TRIP),
                                                  close both at a line on stdin, print CLOSED
  barrier <handle> <n> <timeout s>                register, print REGISTERED, wait n times printing TRIP <i>,
                                                  then wait once more: print BROKEN <reason> <pid> when it breaks
"""

import sys
import time

import numpy as np

import sharedarrays as sa
from sharedarrays import _mutex
from sharedarrays._layout import QueueDescriptor as Q
from sharedarrays._words import data_words


def out(*parts) -> None:
    print(*parts, flush=True)


def value(producer: int, k: int) -> int:
    return producer * 1_000_000 + k


def main(args: list[str]) -> bool:
    cmd = args[0]
    if cmd == "produce":
        pool = sa.Pool.attach(args[1])
        q = sa.Queue.attach(args[2])
        producer, n = int(args[3]), int(args[4])
        for k in range(n):
            s = pool.acquire(timeout=30)
            s.array[...] = value(producer, k)
            q.send(s, timeout=30)
        out("DONE")
        if len(args) > 5 and args[5] == "end":
            q.end()
        q.close()
        pool.close()
    elif cmd == "produce-views":
        a = sa.attach(args[1])
        q = sa.Queue.attach(args[2])
        rows = a.shape[0]
        for k in range(int(args[3])):
            r = k % rows
            q.send(a.array[r, ::-1], timeout=30)
        out("DONE")
        q.close()
        a.close()
    elif cmd == "produce-mixed":
        q = sa.Queue.attach(args[1])
        pool = sa.Pool.create("i8", 4, 8)
        a = sa.create((4, 8), "i8")
        a.array[...] = np.arange(4)[:, None] * 1000 + np.arange(8)
        out("POOL", pool.handle)
        for k in range(int(args[2])):
            if k % 3 == 2:
                q.send(a.array[k % 4, ::-1], timeout=30)
            else:
                s = pool.acquire(timeout=30)
                s.array[...] = value(1, k)
                q.send(s, timeout=30)
        out("DONE")
        q.end()
        sys.stdin.readline()
        q.close()
        pool.close()
        a.close()
        out("CLOSED")
    elif cmd == "consume":
        q = sa.Queue.attach(args[1])
        hold = len(args) > 2 and args[2] == "hold"
        count = 0
        for m in q:
            count += 1
            kind = "slot" if isinstance(m, sa.Slot) else "view"
            out("GOT", int(m.array.flat[0]), kind, int(m.array.sum()))
            if hold:
                out("HOLDING")
                time.sleep(3600)
            m.close()
        out("END", count)
        q.close()
    elif cmd == "double":
        qin = sa.Queue.attach(args[1])
        qout = sa.Queue.attach(args[2])
        out("ATTACHED")
        count = 0
        for m in qin:
            m.array[...] *= 2
            qout.send(m, timeout=30)
            count += 1
        out("END", count)
        qin.close()
        qout.close()
    elif cmd == "send-loop":
        pool = sa.Pool.attach(args[1])
        q = sa.Queue.attach(args[2])
        k = 0
        while True:
            s = pool.acquire(timeout=30)
            s.array[...] = k
            q.send(s, timeout=30)
            if k % 50 == 0:
                out("SENT", k)
            k += 1
    elif cmd == "hold-slot":
        pool = sa.Pool.attach(args[1])
        s = pool.acquire(timeout=30)
        out("HOLDING", s.index)
        time.sleep(3600)
    elif cmd == "hold-mutex":
        q = sa.Queue.attach(args[1])
        with data_words(q._arr) as w:
            while not _mutex.try_lock(w, Q.MUTEX_OFFSET):
                time.sleep(0.001)
            out("HOLDING")
            time.sleep(3600)
    elif cmd == "receive-until-abandoned":
        q = sa.Queue.attach(args[1])
        try:
            while True:
                m = q.receive(timeout=30)
                if m is None:
                    out("END")
                    break
                m.close()
        except sa.QueueAbandonedError as e:
            out("ABANDONED", ",".join(str(p) for p in e.pids))
    elif cmd == "receive-increasing":
        q = sa.Queue.attach(args[1])
        pool = sa.Pool.attach(args[2])
        count, last = 0, -1
        try:
            while True:
                m = q.receive(timeout=30)
                if m is None:
                    out("END", count)
                    break
                k = int(m.array.flat[0])
                m.close()
                if k <= last:
                    out("DISORDER", last, k)
                count, last = count + 1, k
        except sa.QueueAbandonedError as e:
            out("ABANDONED", ",".join(str(p) for p in e.pids), count, last)
        out("FREE", pool.free())
        q.close()
        pool.close()
    elif cmd == "acquire":
        pool = sa.Pool.create("f8", 2, 4) if args[1] == "new" else sa.Pool.attach(args[1])
        if args[1] == "new":
            out("POOL", pool.handle)
        out("READY")
        sys.stdin.readline()
        out("FREE", pool.free())
        t0 = time.monotonic()
        try:
            s = pool.acquire(timeout=float(args[2]))
            out("ACQUIRED", s.index, round((time.monotonic() - t0) * 1000))
        except sa.WaitTimeoutError:
            out("TIMEOUT", round((time.monotonic() - t0) * 1000))
        sys.stdin.readline()
        pool.close()
        out("CLOSED")
    elif cmd == "queue-ops":
        q = sa.Queue.attach(args[1])
        pool = sa.Pool.attach(args[2], "f8")
        out("READY")
        while True:
            op = sys.stdin.readline().split()
            if not op or op[0] == "exit":
                break
            t0 = time.monotonic()
            ms = lambda: round((time.monotonic() - t0) * 1000)  # noqa: E731
            if op[0] == "receive":
                try:
                    m = q.receive(timeout=float(op[1]))
                    v = int(m.array.flat[0])
                    m.close()
                    out("GOT", v, ms())
                except sa.WaitTimeoutError as e:
                    out("TIMEOUT", ms(), str(e).replace("\n", " "))
            elif op[0] == "send":
                s = pool.acquire(timeout=5)
                s.array[...] = float(op[1])
                q.send(s, timeout=5)
                out("SENT", ms())
        q.close()
        pool.close()
    elif cmd == "own-queue-barrier":
        q = sa.Queue.create(4)
        b = sa.Barrier.create(2)
        b.register()
        out("QUEUE", q.handle)
        out("BARRIER", b.handle)
        m = q.receive(timeout=30)
        out("GOT", int(m.array.sum()))
        m.close()
        b.wait(timeout=30)
        out("TRIP")
        sys.stdin.readline()
        q.close()
        b.close()
        out("CLOSED")
    elif cmd == "barrier":
        b = sa.Barrier.attach(args[1])
        n, timeout = int(args[2]), float(args[3])
        b.register()
        out("REGISTERED")
        try:
            for i in range(n):
                b.wait(timeout=timeout)
                out("TRIP", i)
            b.wait(timeout=timeout)
            out("PASSED")
        except sa.BarrierBrokenError as e:
            out("BROKEN", e.reason, e.pid)
    else:
        return False
    return True
