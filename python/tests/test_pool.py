"""Pools across real processes: slots have one owner, come back on close, on GC and when their holder dies."""

import gc
import os
import pickle
import time

import numpy as np
import pytest

import sharedarrays as sa

from conftest import Peer


def test_acquire_close_and_free_count_the_slots():
    with sa.Pool.create("f4", 3, (2, 5)) as pool:
        assert (pool.slots, pool.slot_shape, pool.dtype) == (3, (2, 5), np.dtype("<f4"))
        assert pool.array.shape == (3, 2, 5)
        slots = [pool.acquire(timeout=1) for _ in range(3)]
        assert sorted(s.index for s in slots) == [0, 1, 2]
        assert pool.free() == 0 and pool.try_acquire() is None
        slots[1].array[...] = 7
        assert pool.array[slots[1].index].sum() == 70
        with pytest.raises(sa.WaitTimeoutError, match=r"no slot of pool .* came free within 0.1 s \(all 3 are held: 0 in queues"):
            pool.acquire(timeout=0.1)
        slots[1].close()
        slots[1].close()  # idempotent
        assert pool.free() == 1
        with pytest.raises(ValueError, match="is closed"):
            slots[1].array
        again = pool.try_acquire()
        assert again.index == slots[1].index


def test_a_pool_closed_while_other_threads_acquire_leaves_no_slot_held():
    # a claim is one step with its entry in the held slots, and none is made once close() began, so the close
    # gives back every slot its threads held, whenever they were claimed; the threads switch every microsecond
    import sys
    import threading

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with sa.Pool.create("i8", 4, 2) as keeper:
            for _ in range(30):
                pool = sa.Pool.attach(keeper.handle)
                errors: list[str] = []
                stop = threading.Event()

                def churn():
                    try:
                        kept = []
                        while not stop.is_set():
                            s = pool.try_acquire()
                            if s is not None:
                                kept.append(s)
                            if len(kept) > 1:
                                kept.pop(0).close()
                    except ValueError as e:
                        if "closed" not in str(e):
                            errors.append(repr(e))
                    except Exception as e:  # noqa: BLE001: reported below
                        errors.append(repr(e))

                threads = [threading.Thread(target=churn) for _ in range(3)]
                for t in threads:
                    t.start()
                time.sleep(0.002)
                pool.close()
                stop.set()
                for t in threads:
                    t.join(10)
                assert not any(t.is_alive() for t in threads) and errors == []
                assert keeper.free() == 4
    finally:
        sys.setswitchinterval(switch)


def test_a_slot_dropped_without_close_is_given_back_by_the_garbage_collector_once():
    with sa.Pool.create("i8", 2, 4) as pool:
        s = pool.acquire(timeout=1)
        t = pool.acquire(timeout=1)
        assert pool.free() == 0
        del s
        gc.collect()
        assert pool.free() == 1
        u = pool.acquire(timeout=1)  # the freed slot, now held again: a late second release must not free it
        gc.collect()
        assert pool.free() == 0
        t.close(), u.close()


def test_a_pool_pickles_as_its_handle_and_checks_what_it_attaches():
    with sa.Pool.create("u1", 2, (4, 4)) as pool:
        with pickle.loads(pickle.dumps(pool)) as other:
            assert (other.handle, other.slots, other.slot_shape) == (pool.handle, 2, (4, 4))
        with pytest.raises(ValueError, match="holds |u1, not <f8"):
            sa.Pool.attach(pool.handle, "f8")
    with sa.create((2, 3), "f8") as plain:
        with pytest.raises(sa.InvalidSegmentError, match="is not an array pool"):
            sa.Pool.attach(plain.handle)


def test_the_slot_of_a_sigkilled_holder_is_reclaimed_by_a_waiting_acquire():
    with sa.Pool.create("f8", 1, 8) as pool:
        with Peer("hold-slot", pool.handle) as p:
            assert p.expect("HOLDING") == "0"
            assert pool.try_acquire() is None
            p.kill()
            s = pool.acquire(timeout=5)  # reclaimDead within a slice
            assert s.index == 0
            s.close()
            assert pool.free() == 1


def test_close_of_the_pool_gives_back_its_held_slots():
    with sa.Pool.create("f8", 2, 8) as pool:
        other = sa.Pool.attach(pool.handle)
        held = [other.acquire(timeout=1), other.acquire(timeout=1)]
        assert pool.free() == 0
        other.close()
        assert pool.free() == 2 and all(s.closed for s in held)


def test_an_acquire_on_a_pool_emptied_by_a_dead_queue_gets_a_slot_back_without_a_sweep_call(monkeypatch):
    monkeypatch.delenv("SHARED_ARRAYS_AUTO_SWEEP")  # conftest turns the background sweeps off; this one is the point
    with sa.Pool.create("f8", 3, 4) as pool:
        with Peer("queue-with-slots", pool.handle, "3") as p:
            p.expect("QUEUE")
            path = p.expect("PATH")
            assert pool.free() == 0 and pool.in_flight() == 3
            p.kill()  # the queue's only process: its slots stay in flight until the queue is swept
            t0 = time.monotonic()
            s = pool.acquire(timeout=10)  # two looks 250 ms apart see the same slots in flight: it starts the sweep
            waited = time.monotonic() - t0
            assert waited < 5, waited
            s.close()
            deadline = time.monotonic() + 5
            while (pool.free() != 3 or os.path.exists(path)) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert pool.free() == 3 and not os.path.exists(path)
