"""Words another process keeps changing, or left half-written, end no wait past its deadline (the twins of the Java
tests in internal/sync): a barrier whose breaker died between its two stores, a put word bumped on and on, a writer word
switched between two live holders, a view whose shape multiplies past what an array may hold."""

import subprocess
import sys
import threading
import time

import pytest

import sharedarrays as sa
from sharedarrays import _proc
from sharedarrays._layout import BarrierDescriptor as B
from sharedarrays._layout import QueueDescriptor as Q
from sharedarrays._layout import SegmentDescriptor as D
from sharedarrays._words import control_words, data_words


def test_a_breaker_that_died_between_the_reason_and_the_bump_is_reported_at_once():
    with sa.Barrier.create(3) as b:
        with data_words(b._arr) as w:
            w.store64(B.BROKEN_REASON_OFFSET, 1)  # PARTY_DIED stored, the generation never bumped
            w.store64(B.BROKEN_BY_OFFSET, _proc.self_ident())
        t = time.monotonic()
        with pytest.raises(sa.BarrierBrokenError):
            b.wait(timeout=0.3)
        assert time.monotonic() - t < 1


def _churn(target, stop):
    t = threading.Thread(target=lambda: [target() for _ in iter(lambda: stop.is_set(), True)], daemon=True)
    t.start()
    return t


def test_a_put_word_bumped_on_and_on_ends_no_receive_past_its_deadline():
    with sa.Queue.create(4) as q:
        stop = threading.Event()
        with data_words(q._arr) as w:
            t = _churn(lambda: w.bump(Q.PUT_SEQ_OFFSET, Q.PUT_WAITERS_OFFSET), stop)
            try:
                start = time.monotonic()
                with pytest.raises(sa.WaitTimeoutError):
                    q.receive(timeout=0.3)
                assert time.monotonic() - start < 1.5
            finally:
                stop.set()
                t.join()


def test_a_writer_word_switched_between_two_live_holders_ends_timed_locks_at_their_deadline():
    kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(2)]
    try:
        idents = [_proc.ident(k.pid, _proc.start_time(k.pid)) for k in kids]
        assert all(_proc.ident_alive(i) for i in idents)
        with sa.create(8, "f8") as a, control_words(a) as c:
            stop = threading.Event()
            flip = iter(int(x) for x in range(10**12))
            t = _churn(lambda: (c.store64(D.WRITER_OFFSET, idents[next(flip) % 2]),
                                c.bump(D.WRITER_SEQ_OFFSET, D.WRITER_WAITERS_OFFSET)), stop)
            try:
                while c.load64(D.WRITER_OFFSET) == 0:
                    pass
                for lock in (a.read_lock, a.write_lock):
                    start = time.monotonic()
                    with pytest.raises(sa.WaitTimeoutError):
                        with lock(timeout=0.3):
                            pass
                    assert time.monotonic() - start < 1.5
            finally:
                stop.set()
                t.join()
                c.store64(D.WRITER_OFFSET, 0)
    finally:
        for k in kids:
            k.kill()
            k.wait()


def test_a_view_whose_shape_multiplies_past_what_an_array_may_hold_is_refused():
    from sharedarrays._queue import _check_bounds
    for shape in ((65536,) * 4, (65536, 65536, 65536, 65535), (1000,) * 5):
        with pytest.raises(sa.InvalidSegmentError, match="more elements than an array"):
            _check_bounds(0, shape, (0,) * len(shape), 65536, "message")
    _check_bounds(0, (1000, 1000), (0, 0), 1000, "message")
