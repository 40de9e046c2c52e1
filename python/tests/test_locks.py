"""The readers-writer lock and change signal across real processes."""

import multiprocessing as mp
import os
import threading
import time

import pytest

import sharedarrays as sa

from conftest import Peer


def _count(handle, n):
    with sa.attach(handle) as a:
        arr = a.array
        for _ in range(n):
            with a.write_lock():
                arr[0] += 1


def test_four_processes_increment_under_the_write_lock_to_the_exact_total():
    n = 2000
    with sa.create(2, "i8") as a:
        ctx = mp.get_context("spawn")
        procs = [ctx.Process(target=_count, args=(a.handle, n)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
            assert p.exitcode == 0
        assert a.array[0] == 4 * n
        assert a.lock_status() == sa.LockStatus(0, [], 0)


def test_threads_of_one_process_are_ordered_too():
    with sa.create(1, "i8") as a:
        def work():
            for _ in range(500):
                with a.write_lock():
                    v = a.array[0]
                    time.sleep(0)
                    a.array[0] = v + 1
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert a.array[0] == 2000


def test_a_writer_in_another_process_keeps_readers_and_writers_out_until_the_timeout():
    with sa.create(4, "f8") as a:
        with Peer("hold-write", a.handle) as p:
            p.expect("WRITING")
            assert a.lock_status().writer_pid == p.pid
            t0 = time.monotonic()
            with pytest.raises(sa.WaitTimeoutError, match=f"pid {p.pid}, which is alive") as e:
                with a.read_lock(timeout=0.3):
                    pass
            assert isinstance(e.value, TimeoutError)
            assert 0.25 < time.monotonic() - t0 < 5
            with pytest.raises(sa.WaitTimeoutError):
                with a.write_lock(timeout=0.2):
                    pass
            p.kill()
        # nothing was taken by the timed-out calls; the dead writer is recovered by the next one
        with a.write_lock(timeout=5):
            assert a.lock_status().writer_pid == os.getpid()
        assert a.lock_status().recoveries == 1


def test_a_sigkilled_writer_is_recovered_within_a_second():
    with sa.create(1000, "f8") as a:
        with Peer("hold-write", a.handle) as p:
            p.expect("WRITING")
            p.kill()
            t0 = time.monotonic()
            with a.write_lock():
                took = time.monotonic() - t0
                a.array[:] = 1
            assert took < 1.0
            st = a.lock_status()
            assert st.recoveries == 1 and st.writer_pid == 0


def test_a_sigkilled_reader_is_cleared_by_the_next_writer():
    with sa.create(10, "i4") as a:
        with Peer("hold-read", a.handle) as p:
            p.expect("READING")
            assert a.lock_status().reader_pids == [p.pid]
            with pytest.raises(sa.WaitTimeoutError, match=f"pid {p.pid}"):
                with a.write_lock(timeout=0.2):
                    pass
            p.kill()
            t0 = time.monotonic()
            with a.write_lock(timeout=10):
                assert time.monotonic() - t0 < 1.0
            assert a.lock_status() == sa.LockStatus(0, [], 1)


def test_a_reader_in_this_process_blocks_a_writer_thread():
    with sa.create(4, "f8") as a:
        b = sa.attach(a.handle)
        with b.read_lock():
            assert a.lock_status().reader_pids == [os.getpid()]
            # the same process's read lock: a write from another thread waits for it
            done = threading.Event()

            def writer():
                with a.write_lock():
                    done.set()
            t = threading.Thread(target=writer)
            t.start()
            assert not done.wait(0.2)
        t.join(5)
        assert done.is_set()
        b.close()


def test_reentrant_write_and_read_under_write_but_no_upgrade():
    with sa.create(4, "f8") as a:
        with a.write_lock():
            with a.write_lock():
                with a.read_lock():
                    pass
        with a.read_lock():
            with a.read_lock():
                with pytest.raises(RuntimeError, match="cannot be upgraded"):
                    with a.write_lock():
                        pass
        assert a.lock_status() == sa.LockStatus(0, [], 0)
