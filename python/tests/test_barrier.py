"""Barriers across real processes: trips, and breaks when a party dies, leaves or times out."""

import pickle
import time

import pytest

import sharedarrays as sa

from conftest import Peer


def test_three_processes_trip_ten_times_then_a_killed_party_breaks_it_for_the_others():
    with sa.Barrier.create(3) as bar:
        bar.register()
        peers = [Peer("barrier", bar.handle, "10", "30") for _ in range(2)]
        try:
            for p in peers:
                p.expect("REGISTERED")
            assert sorted(bar.registered_pids()) == sorted([p.pid for p in peers] + [__import__("os").getpid()])
            indices = [bar.wait(timeout=30) for _ in range(10)]
            assert all(0 <= i < 3 for i in indices)
            for p in peers:
                assert [p.expect("TRIP") for _ in range(10)] == [str(i) for i in range(10)]
            victim, other = peers
            time.sleep(0.2)  # both wait in the 11th generation
            victim.kill()
            assert other.expect("BROKEN", timeout=10) == f"PARTY_DIED {victim.pid}"
            with pytest.raises(sa.BarrierBrokenError, match=f"party pid {victim.pid} died before the barrier tripped") as e:
                bar.wait(timeout=5)
            assert (e.value.reason, e.value.pid) == ("PARTY_DIED", victim.pid)
            assert bar.broken
        finally:
            for p in peers:
                p.close()


def test_a_timed_out_wait_breaks_the_barrier_for_everyone():
    with sa.Barrier.create(3) as bar, Peer("barrier", bar.handle, "0", "30") as p:
        p.expect("REGISTERED")
        with pytest.raises(sa.BarrierBrokenError, match=r"timed out after 0.2 s with \d of 3 parties arrived") as e:
            bar.wait(timeout=0.2)
        assert e.value.reason == "TIMED_OUT"
        import os
        assert p.expect("BROKEN") == f"TIMED_OUT {os.getpid()}"


def test_a_party_that_closes_breaks_the_barrier_with_party_left():
    with sa.Barrier.create(2) as bar:
        other = pickle.loads(pickle.dumps(bar))
        other.register()
        other.close()
        with pytest.raises(sa.BarrierBrokenError) as e:
            bar.wait(timeout=5)
        assert e.value.reason == "PARTY_LEFT"


def test_all_slots_taken_and_not_a_barrier_are_refused():
    with sa.Barrier.create(1) as bar:
        bar.register()
        assert bar.wait(timeout=1) == 0 and bar.wait(timeout=1) == 0
        with sa.Barrier.attach(bar.handle) as other:
            with pytest.raises(RuntimeError, match="has all 1 parties registered"):
                other.register()
    with sa.create(10, "i8") as plain:
        with pytest.raises(sa.InvalidSegmentError, match="is not a barrier"):
            sa.Barrier.attach(plain.handle)


def test_a_breaker_descheduled_between_the_reason_and_its_ident_is_named_once_the_ident_comes():
    # the reason stored, BROKEN_BY not yet (its breaker lost the core in between): a waiter waits for the ident
    # (bounded) instead of naming "pid 0"; one that never comes gives pid 0 after the bound, not a hang
    import threading

    from sharedarrays import _proc
    from sharedarrays._layout import BarrierDescriptor as B
    from sharedarrays._words import data_words

    with sa.Barrier.create(3) as bar:
        bar.register()
        dead = _proc.self_ident() + 12345
        with data_words(bar._arr) as w:
            w.store64(B.BROKEN_REASON_OFFSET, 1)  # PARTY_DIED
            late = threading.Timer(0.03, lambda: w.store64(B.BROKEN_BY_OFFSET, dead))
            late.start()
            with pytest.raises(sa.BarrierBrokenError) as e:
                bar.wait(timeout=10)
            late.join()
            assert (e.value.reason, e.value.pid) == ("PARTY_DIED", _proc.ident_pid(dead))
            w.store64(B.BROKEN_BY_OFFSET, 0)
            t0 = time.monotonic()
            with pytest.raises(sa.BarrierBrokenError) as e:
                bar.wait(timeout=10)
            assert e.value.pid == 0 and time.monotonic() - t0 < 5
