"""Queues across real processes: every message once and in each producer's order, slots move and come back,
dead peers are repaired or reported."""

import multiprocessing as mp
import os
import pickle
import time

import numpy as np
import pytest

import sharedarrays as sa
from sharedarrays import _mutex
from sharedarrays._layout import QueueDescriptor as Q
from sharedarrays._words import data_words

from conftest import Peer


def _send_numbered(pool, q, n: int) -> None:
    """Sends n slots of pool on q, slot k filled with k."""
    for k in range(n):
        s = pool.acquire(timeout=1)
        s.array[...] = k
        q.send(s, timeout=1)


def _gots(p: Peer) -> list[tuple[int, str, int]]:
    out = []
    while True:
        line = p.expect("")
        if line.startswith("END"):
            assert int(line.split()[1]) == len(out)
            return out
        if line.startswith("GOT"):
            v, kind, total = line.split()[1:]
            out.append((int(v), kind, int(total)))


def test_two_producers_two_consumers_every_message_once_in_each_producers_order():
    n = 150
    with sa.Pool.create("i8", 6, (4, 4)) as pool, sa.Queue.create(4) as q:
        consumers = [Peer("consume", q.handle) for _ in range(2)]
        producers = [Peer("produce", pool.handle, q.handle, str(i + 1), str(n)) for i in range(2)]
        try:
            for p in producers:
                p.expect("DONE", timeout=60)
            q.end()
            got = [_gots(c) for c in consumers]
        finally:
            for p in consumers + producers:
                p.close()
        values = sorted(v for g in got for v, _, _ in g)
        assert values == sorted(i * 1_000_000 + k for i in (1, 2) for k in range(n))
        for g in got:
            for v, kind, total in g:
                assert kind == "slot" and total == 16 * v
            for producer in (1, 2):
                mine = [v for v, _, _ in g if v // 1_000_000 == producer]
                assert mine == sorted(mine)
        assert pool.free() == 6 and len(q) == 0 and q.dropped == 0


def test_views_and_whole_arrays_travel_as_handle_and_geometry():
    with sa.create((3, 5), "f8") as a, sa.Queue.create(8) as q:
        a.array[...] = np.arange(15).reshape(3, 5)
        q.send(a, timeout=1)
        q.send(a.array[1:, ::-2], timeout=1)
        with Peer("consume", q.handle) as c:
            whole = c.expect("GOT")
            view = c.expect("GOT")
            assert whole == f"0 view {int(a.array.sum())}"
            assert view == f"{int(a.array[1, 4])} view {int(a.array[1:, ::-2].sum())}"
            with Peer("produce-views", a.handle, q.handle, "3") as p:
                p.expect("DONE")
            for k in range(3):
                assert c.expect("GOT") == f"{int(a.array[k, 4])} view {int(a.array[k].sum())}"
            q.end()
            assert c.expect("END") == "5"
        m = q.receive(timeout=1)
        assert m is None


def test_send_and_receive_in_one_process_move_the_slot_and_keep_the_view():
    with sa.Pool.create("f4", 2, 3) as pool, sa.Queue.create(2) as q, sa.create(10, "i2") as a:
        s = pool.acquire(timeout=1)
        s.array[...] = 1.5
        q.send(s, timeout=1)
        assert s.closed and pool.free() == 1 and pool.in_flight() == 1
        with pytest.raises(ValueError, match="is closed"):
            q.send(s)
        q.send(a.array[2:8:3], timeout=1)
        assert len(q) == 2 and not q.try_send(a)
        with pytest.raises(sa.WaitTimeoutError, match=r"stayed full \(2 messages\)"):
            q.send(a, timeout=0.1)
        m = q.receive(timeout=1)
        assert isinstance(m, sa.Slot) and m.array.tolist() == [1.5, 1.5, 1.5] and pool.in_flight() == 0
        v = q.receive(timeout=1)
        a.array[5] = 42
        assert isinstance(v, sa.ArrayView) and v.array.tolist() == [0, 42] and (v.offset, v.strides) == (2, (3,))
        with pytest.raises(sa.WaitTimeoutError, match="no message on queue"):
            q.receive(timeout=0.05)
        del m
        import gc
        gc.collect()
        assert pool.free() == 2
        q.end()
        assert q.receive(timeout=1) is None
        with pytest.raises(RuntimeError, match=r"has ended \(pid \d+ called end\(\)\)"):
            q.send(a, timeout=1)
        with pytest.raises(ValueError, match="not a view of an open shared array"):
            q.send(np.zeros(3))


def test_a_closed_slot_is_not_sent_even_where_this_process_holds_its_index_again():
    # the one-call send tests the Slot's own state, not only the owner word, which holds this process again
    with sa.Pool.create("i4", 1, 2) as pool, sa.Queue.create(2) as q, sa.create(4, "i2") as a:
        q.send(a, timeout=1)  # registers this process as a producer: slots now take the one-call send
        s = pool.acquire(timeout=1)
        s.close()
        t = pool.acquire(timeout=1)
        assert t.index == s.index and not t.closed
        with pytest.raises(ValueError, match="is closed"):
            q.send(s, timeout=1)
        assert len(q) == 1 and pool.in_flight() == 0 and not t.closed
        t.array[...] = 5
        with pytest.raises(ValueError, match="timeout must be >= 0"):
            q.send(t, timeout=-1)  # refused on the one-call way too, before anything is sent
        assert not t.closed and len(q) == 1
        q.send(t, timeout=1)
        assert t.closed and pool.in_flight() == 1 and pool.free() == 0
        assert isinstance(q.receive(timeout=1), sa.ArrayView)
        r = q.receive(timeout=1)
        assert r.array.tolist() == [5, 5]
        r.close()
        s.close()  # a second close of the old Slot frees nothing
        assert pool.free() == 1


@pytest.mark.parametrize("delay", [0.0, 0.00002, 0.01, 0.2])
def test_a_close_in_another_thread_ends_a_waiting_receive_at_once(delay):
    # the receive spins in C with the GIL released (holding the mapping), then sleeps on the futex; a close
    # meanwhile ends it: None (the creator's close ends the queue) or ValueError, long before its timeout
    import threading
    for _ in range(10 if delay < 0.1 else 1):
        q = sa.Queue.create(1)
        with pytest.raises(sa.WaitTimeoutError):
            q.receive(timeout=0)  # registers: the next receive is the one-call step's
        out = []

        def receive():
            t0 = time.monotonic()
            try:
                out.append(q.receive(timeout=5))
            except Exception as e:  # noqa: BLE001: the assert below names what it was
                out.append(e)
            out.append(time.monotonic() - t0)

        t = threading.Thread(target=receive)
        t.start()
        time.sleep(delay)
        q.close()
        t.join(10)
        assert not t.is_alive()
        assert out[0] is None or type(out[0]) is ValueError and ("closed" in str(out[0]) or "closing" in str(out[0])), out
        assert out[1] < delay + 2


def test_the_one_call_steps_write_and_take_the_cells_the_long_way_writes_and_takes(monkeypatch):
    # after a process registered, a send of a slot and a receive are one _native call each (PROTOCOL.md 15.4
    # in C); the cell it writes must be the long way's, field for field, and the long way must read it
    from sharedarrays import _native, _proc
    calls = {"put": 0, "take": 0}
    put, take = _native.queue_put, _native.queue_take

    def counted(name, f):
        def g(*a):
            calls[name] += 1
            return f(*a)
        return g

    monkeypatch.setattr(_native, "queue_put", counted("put", put))
    monkeypatch.setattr(_native, "queue_take", counted("take", take))
    with sa.Pool.create("i4", 2, (2, 3)) as pool, sa.Queue.create(4) as q, sa.create(10, "i2") as a:
        s = pool.acquire(timeout=1)
        q.send(s, timeout=1)  # registers: the long way
        with data_words(q._arr) as w:
            first = q._read(w, q._cell(0), 0)
        r = q.receive(timeout=1)  # registers and attaches the pool: the long way
        r.array[...] = 7
        q.send(r, timeout=1)  # the short way
        assert r.closed and calls["put"] == 1 and pool.in_flight() == 1
        with data_words(q._arr) as w:
            second = q._read(w, q._cell(1), 1)
            c = q._cell(1)
            hb = pool.handle.encode()
            words = [w.load32(c + Q.CELL_KIND), w.load32(c + Q.CELL_NDIM), w.load64(c + Q.CELL_ID),
                     w.load64(c + Q.CELL_INDEX), w.load32(c + Q.CELL_HANDLE_LENGTH), w.load64(c + Q.CELL_SHAPE),
                     w.load64(c + Q.CELL_SHAPE + 8), w.load64(c + Q.CELL_STRIDES), w.load64(c + Q.CELL_STRIDES + 8),
                     w.load64(c + Q.CELL_SENDER), bytes(q._arr._seg.mm[4096 + c + Q.CELL_HANDLE:][:len(hb)])]
        assert words == [1, 2, pool.id, s.index, len(hb), 2, 3, 3, 1, _proc.self_ident(), hb]
        assert second == first._replace(position=1)
        back = q.receive(timeout=1)  # the short way: claimed in C, adopted here
        assert calls["take"] >= 1 and isinstance(back, sa.Slot) and back.index == s.index
        assert back.array.tolist() == [[7, 7, 7], [7, 7, 7]] and pool.in_flight() == 0 and pool.free() == 1
        q.send(a.array[1:9:2], timeout=1)  # a view: the long way writes, the short way takes and parses
        taken = calls["take"]
        v = q.receive(timeout=1)
        assert calls["take"] == taken + 1 and isinstance(v, sa.ArrayView)
        assert (v.offset, v.shape, v.strides) == (1, (4,), (2,))
        back.close()
        assert pool.free() == 2
        with pytest.raises(sa.WaitTimeoutError):
            q.receive(timeout=0.02)  # an empty queue: a spin in C bounded by the timeout, then the long way
        t0 = time.monotonic()
        with pytest.raises(sa.WaitTimeoutError):
            q.receive(timeout=0)
        assert time.monotonic() - t0 < 0.01


def test_a_sigkilled_consumer_holding_a_slot_gives_it_back_and_loses_only_that_message():
    with sa.Pool.create("i8", 2, 4) as pool, sa.Queue.create(4) as q:
        _send_numbered(pool, q, 2)
        with Peer("consume", q.handle, "hold") as c:
            assert c.expect("GOT").split()[0] == "0"
            c.expect("HOLDING")
            assert pool.free() == 0
            c.kill()
        assert pool.free() == 1  # reclaimDead: the dead consumer's slot
        m = q.receive(timeout=1)
        assert int(m.array[0]) == 1
        m.close()
        assert pool.free() == 2 and q.dropped == 0


def test_a_sigkilled_producer_abandons_the_queue_for_its_receiver():
    with sa.Pool.create("i8", 4, 4) as pool, sa.Queue.create(4) as q:
        with Peer("send-loop", pool.handle, q.handle) as p:
            p.expect("SENT")
            while len(q) == 0:
                time.sleep(0.01)
            p.kill()
            received = 0
            with pytest.raises(sa.QueueAbandonedError, match=f"every registered producer died \\(pids \\[{p.pid}\\]\\)") as e:
                while True:
                    m = q.receive(timeout=10)
                    received += 1
                    m.close()
            assert e.value.pids == [p.pid]
            assert 1 <= received <= 4
        assert pool.free() == 4


def test_a_dead_mutex_holder_is_taken_over_and_a_live_one_times_out_naming_it():
    with sa.create(4, "u1") as a, sa.Queue.create(4) as q:
        with Peer("hold-mutex", q.handle) as p:
            p.expect("HOLDING")
            t = time.monotonic()
            assert not q.try_send(a)
            assert time.monotonic() - t < 0.05  # a try never waits for another process
            with pytest.raises(sa.WaitTimeoutError, match=f"could not send to queue .* within 0.2 s: its lock is held by pid {p.pid}"):
                q.send(a, timeout=0.2)
            p.kill()
            q.send(a, timeout=5)
        assert len(q) == 1
        with data_words(q._arr) as w:
            assert w.load64(Q.MUTEX_OFFSET) == 0


def test_a_dead_senders_complete_cell_past_the_tail_is_published_and_its_unmoved_slot_dropped():
    # what a sender killed between the position word and the slot CAS leaves (PROTOCOL.md 15.4)
    with sa.Pool.create("i8", 1, 2) as pool, sa.Queue.create(2) as q, Peer("hold-slot", pool.handle) as p:
        p.expect("HOLDING")
        other = sa.Queue.attach(q.handle)
        pool._held[0] = state = [0]  # pretend this process owned it, write the cell, stop before the move
        s = sa.Slot(pool, 0, state)
        kind, aid, index, code, shape, strides, handle, _ = other._message(s)
        s._state[0] = 2
        del pool._held[0]
        with data_words(other._arr) as w:
            c = other._cell(0)
            other._write(other._arr._seg.mm, c, kind, aid, index, code, shape, strides, handle.encode())
            w.store64(c + Q.CELL_POSITION, 0)
        other._arr.close()
        p.kill()
        with pytest.raises(sa.WaitTimeoutError):
            q.receive(timeout=0.2)  # published, claim failed: dropped
        assert q.dropped == 1 and len(q) == 0
        assert pool.free() == 1


def test_the_sole_users_close_frees_the_slots_of_pending_messages():
    with sa.Pool.create("f8", 3, 2) as pool:
        q = sa.Queue.create(4, lifetime="shared")
        for _ in range(3):
            q.send(pool.acquire(timeout=1), timeout=1)
        assert pool.free() == 0
        q.close()
        assert pool.free() == 3


def _mp_consumer(q, out):
    n = 0
    total = 0
    for m in q:
        total += int(m.array.sum())
        m.close()
        n += 1
    out.put((n, total))


def test_queues_and_pools_pickle_as_their_handles_for_spawned_children():
    ctx = mp.get_context("spawn")
    with sa.Pool.create("i4", 3, 5) as pool, sa.Queue.create(2) as q:
        assert pickle.loads(pickle.dumps(q)).handle == q.handle
        out = ctx.Queue()
        child = ctx.Process(target=_mp_consumer, args=(q, out))
        child.start()
        try:
            for k in range(20):
                s = pool.acquire(timeout=10)
                s.array[...] = k
                q.send(s, timeout=10)
            q.end()
            assert out.get(timeout=60) == (20, 5 * sum(range(20)))
        finally:
            child.join(30)
            if child.is_alive():
                child.kill()
        assert pool.free() == 3


def test_a_forked_childs_copies_free_no_slot_and_end_no_queue_of_its_parent():
    with sa.Pool.create("i8", 1, 2) as pool, sa.Queue.create(2) as q:
        s = pool.acquire(timeout=1)
        pid = os.fork()
        if pid == 0:  # the child: drop and close its copies, as its exit would
            code = 0
            try:
                s.close()
                q.close()
                pool.close()
            except BaseException:
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert pool.free() == 0 and not s.closed and not q.ended
        q.send(s, timeout=1)
        m = q.receive(timeout=1)
        m.close()
        assert pool.free() == 1
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(m)


def test_threads_of_one_process_share_a_queue_and_a_pool():
    import threading

    n = 200
    got: list[int] = []
    guard = threading.Lock()
    with sa.Pool.create("i8", 4, 2) as pool, sa.Queue.create(3) as q:
        def produce(p):
            for k in range(n):
                s = pool.acquire(timeout=10)
                s.array[...] = p * 1_000_000 + k
                q.send(s, timeout=10)

        def consume():
            for m in q:
                with guard:
                    got.append(int(m.array[0]))
                m.close()

        consumers = [threading.Thread(target=consume) for _ in range(2)]
        producers = [threading.Thread(target=produce, args=(p,)) for p in range(3)]
        for t in consumers + producers:
            t.start()
        for t in producers:
            t.join(60)
        q.end()
        for t in consumers:
            t.join(60)
        assert sorted(got) == sorted(p * 1_000_000 + k for p in range(3) for k in range(n))
        assert pool.free() == 4


def test_a_pool_closed_through_a_received_slot_is_attached_again_by_the_next_receive():
    # slot.pool is the receiving queue's own attachment; closing it gives back what it holds, and the next
    # message of that pool is still delivered (the queue attaches the pool again), not dropped or stranded
    with sa.Pool.create("i8", 3, 2) as pool, sa.Queue.create(3) as q:
        _send_numbered(pool, q, 3)
        first = q.receive(timeout=1)
        attached = first.pool
        assert attached is not pool and first.array.tolist() == [0, 0]
        attached.close()
        assert first.closed and pool.free() == 1
        for k in (1, 2):
            m = q.receive(timeout=1)
            assert m.pool is not attached and m.array.tolist() == [k, k]
            m.close()
        assert pool.free() == 3 and q.dropped == 0


def test_a_queue_closed_while_its_thread_receives_pool_slots_strands_none():
    # a receiving thread's claims are one step with their Slots' entries in the held slots, and none is made
    # once close() began, so the close of the receiving Queue (which closes the pools it attached) gives back
    # every slot it held; what was not received stays in the queue. The threads switch every microsecond.
    import sys
    import threading

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with sa.Pool.create("i8", 4, 2) as pool, sa.Queue.create(4) as q:
            for k in range(40):
                qc = sa.Queue.attach(q.handle)
                stop = threading.Event()
                errors: list[str] = []

                def produce():
                    try:
                        while not stop.is_set():
                            s = pool.try_acquire()
                            if s is None or not q.try_send(s):
                                if s is not None:
                                    s.close()
                                time.sleep(0)
                    except Exception as e:  # noqa: BLE001: reported below
                        errors.append(f"producer: {e!r}")

                def consume():
                    try:
                        while True:
                            m = qc.receive(timeout=1)
                            if m is None:
                                return
                            m.close()
                    except ValueError as e:
                        if "clos" not in str(e):
                            errors.append(f"consumer: {e!r}")
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"consumer: {e!r}")

                threads = [threading.Thread(target=produce), threading.Thread(target=consume)]
                for t in threads:
                    t.start()
                time.sleep(0.0001 * (k % 20))  # from the receiver's first message (its pool attached) on
                qc.close()
                threads[1].join(10)
                stop.set()
                threads[0].join(10)
                assert not any(t.is_alive() for t in threads) and errors == []
                while True:  # what the closed receiver left in the queue
                    try:
                        q.receive(timeout=0).close()
                    except sa.WaitTimeoutError:
                        break
                assert pool.free() == 4, f"{4 - pool.free()} slot(s) held by no Slot"
    finally:
        sys.setswitchinterval(switch)


def test_threads_that_acquire_send_receive_and_close_one_pools_slots_never_hold_one_slot_twice():
    # every change of a Slot's state is one step for the other threads: no slot is held by two Slots at once,
    # the pool's held slots are the ones held, and a close of the pool gives back exactly those; the threads
    # switch every microsecond, not every 5 ms, so that they meet inside each other's steps
    import sys
    import threading

    holders: dict[int, int] = {}
    errors: list[str] = []
    guard = threading.Lock()

    def mine(s, who):
        with guard:
            if s.index in holders:
                errors.append(f"slot {s.index} held by {holders[s.index]} and {who}")
            holders[s.index] = who

    def gone(s):
        with guard:
            holders.pop(s.index, None)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _threads_hold_no_slot_twice(mine, gone, errors)
    finally:
        sys.setswitchinterval(switch)


def _threads_hold_no_slot_twice(mine, gone, errors):
    import threading

    with sa.Pool.create("i8", np.int64(3), 2) as pool, sa.Queue.create(2) as q:  # a numpy slot count, as _shape takes
        def work(w):
            try:
                for k in range(300):
                    s = pool.acquire(timeout=10)
                    mine(s, w)
                    s.array[...] = k
                    gone(s)  # before the send: the receiver may hold it at once
                    if k % 3 == 0:
                        q.send(s, timeout=10)
                    else:
                        s.close()
            except Exception as e:  # noqa: BLE001: reported below, by thread
                errors.append(f"worker {w}: {e!r}")

        def receive():
            try:
                for m in q:
                    mine(m, "receiver")
                    gone(m)
                    m.close()
            except Exception as e:  # noqa: BLE001
                errors.append(f"receiver: {e!r}")

        threads = [threading.Thread(target=work, args=(w,)) for w in range(4)] + [threading.Thread(target=receive)]
        for t in threads:
            t.start()
        for t in threads[:4]:
            t.join(60)
        q.end()
        threads[4].join(60)
        assert not any(t.is_alive() for t in threads) and errors == []
        assert pool.free() == 3 and pool._held == {}
        held = [pool.acquire(timeout=1) for _ in range(2)]
        assert sorted(pool._held) == sorted(s.index for s in held)
    assert all(s.closed for s in held)


# head and tail words no queue can have (PROTOCOL.md 15.4): tail more than capacity past head, and a pair
# whose signed difference overflows (head 2**63 + 5 is Java's Long.MIN_VALUE + 5)
_DAMAGED = [(7, 7 + 3 + 10**9), ((1 << 63) + 5, (1 << 63) - 1)]


def _damage(handle: str, head: int, tail: int) -> None:
    with sa.attach(handle) as words:  # the queue's data, an i8 array
        words.array[Q.HEAD_OFFSET // 8] = np.int64(head - (1 << 64) if head >> 63 else head)
        words.array[Q.TAIL_OFFSET // 8] = np.int64(tail - (1 << 64) if tail >> 63 else tail)


@pytest.mark.parametrize("head,tail", _DAMAGED)
def test_damaged_words_are_refused_at_once_and_the_last_close_returns_at_once(head, tail):
    with sa.Pool.create("f8", 2, 4) as pool:
        q = sa.Queue.create(3, lifetime="shared")
        path = q._arr.path
        q.send(pool.acquire(timeout=1), timeout=1)
        _damage(q.handle, head, tail)
        with pool.acquire(timeout=1) as unsent:
            t = time.monotonic()
            with pytest.raises(sa.InvalidSegmentError, match="is damaged: head .* for a capacity of 3"):
                q.receive(timeout=0.3)
            with pytest.raises(sa.InvalidSegmentError, match="is damaged"):
                q.send(unsent, timeout=0.3)
            assert time.monotonic() - t < 0.25
        assert len(q) == 0
        t = time.monotonic()
        q.close()
        assert time.monotonic() - t < 0.5
        assert not os.path.exists(path)  # shared: the last close removed it
        assert pool.free() == 2  # the slot in flight was found in its cell, not by a loop from head to tail


@pytest.mark.parametrize("head,tail", _DAMAGED)
def test_sweep_removes_a_damaged_dead_queue_at_once_and_gives_its_slots_back(head, tail):
    with sa.Pool.create("i8", 4, 2) as pool:
        with Peer("queue-with-slots", pool.handle, "3") as p:
            q = p.expect("QUEUE")
            path = p.expect("PATH")
            p.kill()
        _damage(q, head, tail)
        assert pool.free() == 1
        t = time.monotonic()
        assert sa.sweep() == [path]
        assert time.monotonic() - t < 1
        assert pool.free() == 4
