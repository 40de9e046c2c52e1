"""Create, attach, handles, lifetimes: pure Python, with real processes where another process matters."""

import os
import pickle
import re
import multiprocessing as mp

import numpy as np
import pytest

import sharedarrays as sa
from sharedarrays._layout import ELEMENT_TYPES, SegmentDescriptor as D

from conftest import Peer

DTYPES = [t.descr for t in ELEMENT_TYPES]


def random_values(dtype: str, shape, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)


@pytest.mark.parametrize("backend", ["shm", "file", "memfd"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_of_every_dtype_and_backend(dtype, backend, tmp_path):
    path = str(tmp_path / "f.npy") if backend == "file" else None
    with sa.create((3, 5, 7), dtype, backend=backend, path=path) as a:
        values = random_values(dtype, (3, 5, 7), 1)
        a.array[...] = values
        with sa.attach(a.handle) as b:
            assert b.array.dtype == np.dtype(dtype) and b.shape == (3, 5, 7)
            np.testing.assert_array_equal(b.array, values)
            b.array[1, 2, 3] = values[0, 0, 0]
            assert a.array[1, 2, 3] == values[0, 0, 0]
        if a.path:
            np.testing.assert_array_equal(np.load(a.path, mmap_mode="r"), a.array)
        if backend == "file":
            a.destroy()


def test_the_file_is_a_npy_file_and_writes_through_numpy_load_are_shared():
    with sa.create((2, 3), "f8") as a:
        m = np.load(a.path, mmap_mode="r+")
        m[1, 2] = 7.5
        assert a.array[1, 2] == 7.5
        with open(a.path, "rb") as f:
            head = f.read(D.PAGE)
        assert head.startswith(b"\x93NUMPY\x01\x00") and head[8:10] == (4086).to_bytes(2, "little")
        assert head.endswith(b"\n") and os.path.getsize(a.path) == 3 * D.PAGE
        del m


def test_handles_have_the_java_string_forms(tmp_path):
    with sa.create(4, "i4", name="frames-1") as a:
        assert re.fullmatch(r"shm://frames-1\?id=[0-9a-f]{16}", a.handle)
        assert sa.parse_handle(a.handle).id == a.id
        assert str(sa.parse_handle(a.handle)) == a.handle
    with sa.create(4, "i4", backend="memfd") as a:
        assert re.fullmatch(rf"memfd://{os.getpid()}/\d+\?id=[0-9a-f]{{16}}", a.handle)
    p = tmp_path / "with space é.npy"
    with sa.create(4, "i4", path=str(p)) as a:
        assert a.handle.startswith("file://" + str(tmp_path) + "/with%20space%20%C3%A9.npy?id=")
        assert sa.parse_handle(a.handle).path == str(p)
        assert a.lifetime == "persistent"
        a.destroy()
    for bad in ["shm://../x", "nope", "shm://a?id=12", "file://relative", "memfd://1", "anonymous://5"]:
        with pytest.raises(ValueError, match="invalid array handle"):
            sa.parse_handle(bad) if not bad.startswith("anonymous") else sa.attach(bad)


def test_repr_shows_handle_shape_dtype_and_state():
    a = sa.create((2, 2), "u2")
    assert re.fullmatch(r"SharedArray\(shm://sa-[0-9a-f]{16}\?id=[0-9a-f]{16}, shape=\(2, 2\), dtype=<u2, lifetime=owner, owner\)",
                        repr(a))
    a.close()
    assert repr(a).endswith("closed)")
    with pytest.raises(ValueError, match="closed"):
        a.array


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="not one of the shared element types"):
        sa.create(3, "c16")
    with pytest.raises(ValueError, match="every dimension"):
        sa.create((3, 0), "f8")
    with pytest.raises(ValueError, match="1 to 8 dimensions"):
        sa.create((1,) * 9, "f8")
    with pytest.raises(ValueError, match="must not contain '/'"):
        sa.create(3, "f8", name="a/b")
    with pytest.raises(ValueError, match="lifetime"):
        sa.create(3, "f8", lifetime="forever")
    with sa.create(3, "f8", name="taken"):
        with pytest.raises(sa.SegmentExistsError):
            sa.create(3, "f8", name="taken")


def test_owner_close_removes_the_name_and_an_attached_view_keeps_its_memory(shm_dir):
    a = sa.create(10, "i8")
    a.array[:] = 5
    b = sa.attach(a.handle)
    b.close()
    assert os.path.exists(a.path)
    with Peer("attach-hold", a.handle) as p:
        p.expect("ATTACHED")
        a.close()
        assert not os.path.exists(a.path)
        p.send("go")
        p.expect("CLOSED")
    with pytest.raises(sa.SegmentNotFoundError):
        sa.attach(a.handle)


def test_shared_lifetime_the_last_process_to_close_removes_it(shm_dir):
    a = sa.create(10, "f4", lifetime="shared")
    with Peer("attach-hold", a.handle) as p:
        p.expect("ATTACHED")
        a.close()
        assert os.listdir(shm_dir) == [os.path.basename(a.path)]
        p.send("go")
        p.expect("CLOSED")
        assert p.wait() == 0
    assert os.listdir(shm_dir) == []


def test_persistent_stays_after_close(shm_dir):
    a = sa.create(10, "u1", lifetime="persistent", name="keep")
    a.array[:] = 9
    a.close()
    with sa.attach("shm://keep") as b:
        assert b.lifetime == "persistent" and int(b.array.sum()) == 90
    os.unlink(shm_dir / "keep")


def test_attach_slots_record_the_processes_and_are_freed_at_close():
    with sa.create(3, "f8") as a:
        with sa.attach(a.handle) as b:
            assert b.attached_pids() == [os.getpid()]
        assert a.attached_pids() == []


def _child_sum(a, q):
    q.put(float(a.array.sum()))
    a.close()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pickles_as_its_handle_so_multiprocessing_children_attach(method):
    with sa.create(100, "f8") as a:
        a.array[:] = 2
        assert pickle.loads(pickle.dumps(a)).close() is None
        ctx = mp.get_context(method)
        q = ctx.Queue()
        p = ctx.Process(target=_child_sum, args=(a, q))
        p.start()
        assert q.get(timeout=60) == 200.0
        p.join(60)
        assert p.exitcode == 0
        # a fork()ed child inherits the object itself: its close() leaves the parent's array alone
        assert os.path.exists(a.path) and a.array.sum() == 200.0
        with sa.attach(a.handle):
            pass


def _close_inherited(a, lifetime_q):
    a.close()
    lifetime_q.put("closed")


@pytest.mark.parametrize("lifetime", ["owner", "shared"])
def test_a_forked_child_closing_an_inherited_array_neither_removes_it_nor_drops_the_parents_flock(lifetime):
    with sa.create(10, "i8", lifetime=lifetime) as a:
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=_close_inherited, args=(a, q))
        p.start()
        assert q.get(timeout=60) == "closed"
        p.join(60)
        assert os.path.exists(a.path)
        import fcntl
        fd = os.open(a.path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the parent still holds LOCK_SH
        finally:
            os.close(fd)


def test_change_signal_wakes_another_process():
    with sa.create(1, "i8") as a:
        n = a.change_count
        assert a.await_change(n, timeout=0.05) == n
        with Peer("await-change", a.handle, str(n), "30") as p:
            p.expect("WAITING")
            assert a.signal_change() == n + 1
            assert int(p.expect("CHANGED")) == n + 1


def test_a_numpy_view_kept_after_close_keeps_its_memory_and_close_while_another_thread_waits_is_safe():
    a = sa.create(1000, "f8")
    a.array[:] = 3
    view = a.array[10:20]
    a.close()
    assert view.sum() == 30.0  # mapped until the view goes: never freed memory, never a crash
    with pytest.raises(ValueError, match="closed"):
        a.array
    del view
    b = sa.create(10, "i8")
    c = sa.attach(b.handle)
    import threading
    import time
    with c.write_lock():
        t = threading.Thread(target=lambda: b.await_change(b.change_count, timeout=0.5))
        t.start()
        time.sleep(0.1)
        b.close()  # the waiting thread still has the mapping
        t.join()
    c.close()


def test_a_create_larger_than_the_free_space_is_insufficient_space(shm_dir):
    s = os.statvfs(shm_dir)
    free = s.f_bavail * s.f_frsize
    if free * 2 > D.MAX_DATA_BYTES:
        pytest.skip("the file system has more than 512 GiB free")
    with pytest.raises(sa.InsufficientSpaceError, match="free, .* requested") as e:
        sa.create(free * 2 // 8, "f8")
    assert isinstance(e.value, OSError) and e.value.requested > e.value.free


def test_ls_lists_ours_and_skips_everything_else(shm_dir):
    with open(shm_dir / "not-ours", "wb") as f:
        f.write(b"x" * 3 * D.PAGE)
    os.mkfifo(shm_dir / "fifo")
    try:
        with sa.create((3, 4), "u4", name="mine", lifetime="shared") as a:
            with sa.attach(a.handle) as b:
                infos = [i for i in sa.ls() if i.path.startswith(str(shm_dir))]
                assert [i.handle for i in infos] == [a.handle]
                i = infos[0]
                assert (i.dtype, i.shape, i.bytes, i.lifetime, i.backend, i.kind) == ("<u4", (3, 4), 48, "shared", "shm", "array")
                assert i.creator == sa.Participant(os.getpid(), i.creator.start_time, True)
                assert [p.pid for p in i.attached] == [os.getpid()]
    finally:
        os.unlink(shm_dir / "not-ours")
        os.unlink(shm_dir / "fifo")


def test_the_backend_is_chosen_as_the_jvm_chooses_it(monkeypatch, tmp_path):
    monkeypatch.setenv("SHARED_ARRAYS_BACKEND", "memfd")
    with sa.create(3, "f8", backend="shm") as a:
        assert a.backend == "memfd"  # the environment wins over the code, as in Java
    with sa.create(3, "f8", path=str(tmp_path / "x")) as a:
        assert a.backend == "file"
        a.destroy()
    monkeypatch.setenv("SHARED_ARRAYS_BACKEND", "tape")
    with pytest.raises(ValueError, match="accepted: shm, memfd, file, anonymous"):
        sa.create(3, "f8")
    monkeypatch.delenv("SHARED_ARRAYS_BACKEND")
    with sa.create(3, "f8") as a:
        assert a.backend in ("shm", "memfd")
