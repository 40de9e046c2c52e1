"""Lifecycle: sweep (and auto-sweep), release on garbage collection and at exit, trust_uid, memfd passing, ls fill levels.

Every other process is a real one (peers/peer.py), killed with SIGKILL where a crash is the point.
"""

import gc
import io
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import sharedarrays as sa
from sharedarrays import _proc, _sweep
from sharedarrays._format import NPY_MAGIC, npy_header
from sharedarrays._layout import SegmentDescriptor as D

from conftest import Peer


def sweep_here(shm_dir, dry_run=False):
    """sa.sweep's rules on the test's shm directory only (the default file directory belongs to everyone's tests)."""
    return _sweep.sweep(dry_run, [str(shm_dir)])


def held_by_killed_peer(*args):
    with Peer("hold-create", *args) as p:
        paths = []
        while True:
            line = p.expect("")
            if line.startswith("PATH "):
                paths.append(line[5:])
            elif line == "READY":
                break
        p.kill()
    return paths


# ---------------------------------------------------------------- sweep


def test_sweep_removes_a_killed_creators_owner_and_shared_segments(shm_dir):
    owner = held_by_killed_peer("2", "100")
    shared = held_by_killed_peer("1", "100", "shared")
    persistent = held_by_killed_peer("1", "100", "persistent")
    assert all(os.path.exists(p) for p in owner + shared + persistent)
    assert sorted(sweep_here(shm_dir, dry_run=True)) == sorted(owner + shared)
    assert all(os.path.exists(p) for p in owner + shared)  # a dry run removes nothing
    assert sorted(sweep_here(shm_dir)) == sorted(owner + shared)
    assert not any(os.path.exists(p) for p in owner + shared)
    assert os.path.exists(persistent[0])  # never swept
    assert sweep_here(shm_dir) == []
    os.unlink(persistent[0])


def test_sweep_leaves_segments_in_use(shm_dir):
    with sa.create(10, "f8") as mine, sa.create(10, "f8", lifetime="shared") as shared:
        with Peer("hold-create", "1", "10") as p:
            path = p.expect("PATH ")
            p.expect("READY")
            assert sweep_here(shm_dir) == []
            p.kill()
        assert sweep_here(shm_dir) == [path]
        assert os.path.exists(mine.path) and os.path.exists(shared.path)


def test_an_owner_segment_whose_attacher_is_recorded_alive_stays_until_it_is_gone(shm_dir):
    """An attacher of a dead creator's OWNER segment holds it (flock); a stopped attacher keeps it too."""
    (path,) = held_by_killed_peer("1", "10")
    name = os.path.basename(path)
    with Peer("attach-hold", "shm://" + name) as p:
        p.expect("ATTACHED")
        assert sweep_here(shm_dir) == []
        p.kill()
    assert sweep_here(shm_dir) == [path]


def test_sweep_skips_what_is_not_ours_whatever_its_name(shm_dir):
    (shm_dir / "notes.txt").write_text("hello")
    (shm_dir / "sa-0123456789abcdef").write_bytes(b"x" * 3 * D.PAGE)
    np.save(shm_dir / "data.npy", np.zeros(1000))
    os.mkdir(shm_dir / "adir")
    os.symlink("/etc/passwd", shm_dir / "link")
    os.mkfifo(shm_dir / "fifo")
    try:
        assert sweep_here(shm_dir) == []
        assert sorted(os.listdir(shm_dir)) == ["adir", "data.npy", "fifo", "link", "notes.txt", "sa-0123456789abcdef"]
    finally:
        for n in ("notes.txt", "sa-0123456789abcdef", "data.npy", "link", "fifo"):
            os.unlink(shm_dir / n)
        os.rmdir(shm_dir / "adir")


def dead_process() -> tuple[int, int]:
    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    start = _proc.start_time(p.pid)
    p.stdin.close()
    p.wait(30)
    return p.pid, start


def _numpy_bytes(a: np.ndarray) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    v = b.getvalue()
    assert v[:10] == NPY_MAGIC + (D.PAGE - 10).to_bytes(2, "little") and len(v) % D.PAGE == 0  # the segment mark, whole pages
    return v


def test_sweep_removes_only_provable_leftovers_of_dead_creates(shm_dir):
    pid, start = dead_process()
    me = f"{os.getpid()}-{_proc.self_start()}"
    mark = NPY_MAGIC + (D.PAGE - 10).to_bytes(2, "little")
    files = {
        f".sa-tmp-{pid}-{start}-0000000a": b"",  # killed before its first write: removed
        f".sa-tmp-{pid}-{start}-0000000b": npy_header("<f8", (2, 3)) + b"\0" * D.PAGE,  # header page written: removed
        f".sa-tmp-{pid}-{start}-0000000c": b"some text",  # not what a create writes: stays
        f".sa-tmp-{pid}-{start}-00000010": mark + b" " * (D.PAGE - len(mark) - 1) + b"\n",  # the mark, no dict: stays
        # numpy's own file whose header it padded to exactly 4096 bytes (a structured dtype): stays
        f".sa-tmp-{pid}-{start}-00000011": _numpy_bytes(np.zeros(512, np.dtype([(f"f{i}", "<f8") for i in range(239)]))),
        f".sa-tmp-{pid}-{start}-0000000d": b"x" * D.PAGE,  # whole pages without the mark: stays
        f".sa-tmp-{me}-0000000e": b"",  # its creator (this process) lives: stays
        f".sa-tmp-{pid}-{start}-zz": b"",  # not a name a create makes: stays
        f".sa-tmp-{pid}-{start}-0000000f": b"",  # hard-linked below (2 links): stays
    }
    for n, data in files.items():
        (shm_dir / n).write_bytes(data)
    os.link(shm_dir / f".sa-tmp-{pid}-{start}-0000000f", shm_dir / "kept-elsewhere")
    try:
        removed = sorted(os.path.basename(p) for p in sweep_here(shm_dir))
        assert removed == [f".sa-tmp-{pid}-{start}-0000000a", f".sa-tmp-{pid}-{start}-0000000b"]
    finally:
        for n in os.listdir(shm_dir):
            os.unlink(shm_dir / n)


def test_one_sweep_removes_a_create_killed_between_link_and_unlink(shm_dir):
    """The killed create's temporary name is a second link of its segment: it goes once the segment is gone.

    A dry run counts the links as the sweep would; a temporary name whose other link is a segment that stays
    (persistent) stays too."""
    (path,) = held_by_killed_peer("1", "100")
    (kept,) = held_by_killed_peer("1", "100", "persistent")
    pid, start = dead_process()
    temp = str(shm_dir / f".sa-tmp-{pid}-{start}-00000012")
    kept_temp = str(shm_dir / f".sa-tmp-{pid}-{start}-00000013")
    os.link(path, temp)
    os.link(kept, kept_temp)
    try:
        assert sweep_here(shm_dir, dry_run=True) == [path, temp]
        assert all(os.path.exists(p) for p in (path, temp))
        assert sweep_here(shm_dir) == [path, temp]
        assert sorted(os.listdir(shm_dir)) == sorted(os.path.basename(p) for p in (kept, kept_temp))
    finally:
        for p in (path, temp, kept, kept_temp):
            if os.path.exists(p):
                os.unlink(p)


def test_a_temp_file_a_live_process_holds_stays(shm_dir):
    import fcntl
    pid, start = dead_process()
    p = shm_dir / f".sa-tmp-{pid}-{start}-00000001"
    p.write_bytes(b"")
    fd = os.open(p, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)  # as a creator holds it (here: a process with the dead one's name)
    try:
        assert sweep_here(shm_dir) == []
    finally:
        os.close(fd)
    assert sweep_here(shm_dir) == [str(p)]


def make_pool(slots=8, width=4):
    pool = sa.create((slots, width), "f8")
    pool._seg.words.store32(D.POOL_SLOTS_OFFSET, slots)
    pool._seg.words.store64(D.POOL_MAGIC_OFFSET, D.POOL_MAGIC)
    return pool


def owners(pool):
    return [pool._seg.words.load64(D.POOL_OWNERS_OFFSET + 8 * i) for i in range(pool.shape[0])]


def test_ls_shows_fill_levels_and_a_swept_dead_queue_gives_its_slots_back(shm_dir):
    with make_pool() as pool:
        pool._seg.words.store64(D.POOL_OWNERS_OFFSET + 8 * 7, _proc.self_ident())  # one slot held by this process
        with Peer("queue-with-slots", pool.handle, "3") as p:
            qh = p.expect("QUEUE ")
            qpath = p.expect("PATH ")
            fills = {i.handle: i.fill for i in sa.ls()}
            assert fills[pool.handle] == "pool 4/8"
            assert fills[qh] == "queue 3/16"
            info = next(i for i in sa.ls() if i.handle == qh)
            assert (info.kind, info.used, info.capacity) == ("queue", 3, 16)
            assert all(o >> 63 for o in owners(pool)[:3])
            assert sweep_here(shm_dir) == []  # its creator is alive and holds it
            seq = pool._seg.words.load32(D.POOL_SEQ_OFFSET)
            p.kill()
        assert sweep_here(shm_dir) == [qpath]
        assert owners(pool) == [0] * 7 + [_proc.self_ident()]
        assert pool._seg.words.load32(D.POOL_SEQ_OFFSET) == seq + 3
        assert [i.fill for i in sa.ls() if i.handle == pool.handle] == ["pool 1/8"]
    assert [i.fill for i in sa.ls()] == []


def test_a_dead_queues_slots_taken_since_are_left_alone(shm_dir):
    with make_pool() as pool:
        with Peer("queue-with-slots", pool.handle, "2") as p:
            qpath = p.expect("PATH ")
            p.kill()
        # slot 0 was received by someone else meanwhile: no longer in flight at that position
        w = pool._seg.words
        inflight0 = w.load64(D.POOL_OWNERS_OFFSET)
        assert w.cas64(D.POOL_OWNERS_OFFSET, inflight0, _proc.self_ident())
        assert sweep_here(shm_dir) == [qpath]
        assert owners(pool)[:2] == [_proc.self_ident(), 0]


def test_a_plain_array_shows_as_array():
    with sa.create((3, 4), "f8") as a:
        (info,) = [i for i in sa.ls() if i.handle == a.handle]
        assert (info.kind, info.used, info.capacity, info.fill) == ("array", -1, -1, "array")


def test_create_starts_an_auto_sweep_at_most_every_5_s_and_it_can_be_turned_off(shm_dir, monkeypatch):
    (first,) = held_by_killed_peer("1", "10")
    _sweep._last[0] = None
    assert os.environ["SHARED_ARRAYS_AUTO_SWEEP"] == "0"  # conftest's
    with sa.create(1, "f8"):
        time.sleep(0.3)
        assert os.path.exists(first)
    monkeypatch.delenv("SHARED_ARRAYS_AUTO_SWEEP")  # on by default
    with sa.create(1, "f8"):
        deadline = time.monotonic() + 10
        while os.path.exists(first) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not os.path.exists(first)
    (second,) = held_by_killed_peer("1", "10")
    with sa.create(1, "f8"):  # within 5 s of the last: no sweep
        time.sleep(0.3)
        assert os.path.exists(second)
    _sweep._last[0] = time.monotonic_ns() - _sweep.PERIOD_NANOS
    with sa.create(1, "f8"):
        deadline = time.monotonic() + 10
        while os.path.exists(second) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not os.path.exists(second)


# ---------------------------------------------------------------- garbage collection and exit


def test_an_array_left_open_at_a_normal_exit_is_closed_and_its_owner_name_removed(shm_dir):
    for lifetime in ("owner", "shared"):
        with Peer("leak", lifetime) as p:
            p.expect("HANDLE ")
            path = p.expect("PATH ")
            assert p.wait() == 0
        assert not os.path.exists(path)
    with Peer("leak", "persistent") as p:
        path = p.expect("PATH ")
        assert p.wait() == 0
    assert os.path.exists(path)
    with sa.attach("shm://" + os.path.basename(path)) as a:
        assert a.attached_pids() == [os.getpid()]  # the exited peer's attach slot was released
    os.unlink(path)


def test_a_dropped_attachment_releases_its_slot_when_collected():
    with sa.create(10, "f8") as a:
        b = sa.attach(a.handle)
        assert a.attached_pids() == [os.getpid()]
        cycle = [b]
        cycle.append(cycle)  # only the cycle collector finds it
        del b, cycle
        gc.collect()
        assert a.attached_pids() == []


def test_a_dropped_owner_array_is_removed_when_collected():
    a = sa.create(10, "f8")
    path = a.path
    view = a.array  # a numpy view keeps the memory mapped, not the array open
    view[:] = 7
    del a
    gc.collect()
    assert not os.path.exists(path)
    assert view.sum() == 70


def test_a_forked_child_collecting_an_inherited_array_leaves_it_to_the_parent(shm_dir):
    box = [sa.create(10, "f8", lifetime="shared")]  # removed by the last to close: judged by the flock alone
    path = box[0].path
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            box.clear()
            gc.collect()  # the child's copy is closed: no unlink, and the parent's LOCK_SH (one open file description) stays
            code = 0 if os.path.exists(path) else 2
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.path.exists(path)
    assert sweep_here(shm_dir) == []  # still held by this process
    box[0].close()
    assert not os.path.exists(path)


def test_a_forked_child_exiting_normally_with_an_inherited_array_leaves_it():
    a = sa.create(10, "f8")
    path = a.path
    code = subprocess.run([sys.executable, "-c", f"""
import os, gc, sharedarrays as sa
a = sa.attach({a.handle!r})
pid = os.fork()
if pid == 0:
    del a
    gc.collect()
    raise SystemExit(0)  # a normal exit (atexit runs) of the child
os.waitpid(pid, 0)
assert a.attached_pids().count(os.getpid()) == 1, a.attached_pids()
a.close()
"""]).returncode
    assert code == 0
    assert os.path.exists(path)
    a.close()


# ---------------------------------------------------------------- trust_uid


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's file needs root (os.chown)")
def test_another_users_file_is_attached_only_if_its_uid_is_trusted(shm_dir):
    with sa.create(4, "f8", name="theirs", lifetime="persistent") as a:
        a.array[:] = 3
        os.chown(a.path, 65534, 65534)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="belongs to uid 65534.*trust_uid=65534"):
            sa.attach("shm://theirs")
        with pytest.raises(sa.InvalidSegmentError, match="belongs to uid 65534"):
            sa.attach("shm://theirs", trust_uid=65533)
        with sa.attach("shm://theirs", trust_uid=65534) as b:
            assert b.array.sum() == 12
        with sa.attach("shm://theirs", trust_uid=[1, 65534]) as b:
            assert b.array.sum() == 12
        with pytest.raises(ValueError, match="uid"):
            sa.attach("shm://theirs", trust_uid=-1)
    finally:
        os.unlink(shm_dir / "theirs")


# ---------------------------------------------------------------- memfd over a Unix socket


def test_a_memfd_array_served_by_one_process_is_received_by_another(tmp_path):
    sock = str(tmp_path / "arr.sock")
    with Peer("serve", sock, "I32", "100", "4") as p:
        h = p.expect("SERVING ")
        assert os.stat(sock).st_mode & 0o777 == 0o600
        with sa.receive(sock) as a:
            assert a.backend == "memfd" and a.id == sa.parse_handle(h).id
            assert a.handle.startswith(f"memfd://{os.getpid()}/")
            assert list(a.array[:3]) == [(4 * 31 + i * 7) % 100 for i in range(3)]
            a.array[:] = 5
            p.send("check")
            assert int(p.expect("SEEN ")) == 5 * sum(range(1, 101))
        p.send("exit")
        p.expect("CLOSED")
        assert p.wait() == 0
    assert not os.path.exists(sock)


def test_serve_and_receive_in_one_process_and_the_refusals(tmp_path):
    sock = str(tmp_path / "s")
    with pytest.raises(sa.SegmentNotFoundError, match="no array is served"):
        sa.receive(sock)
    with sa.create(10, "i8", backend="shm") as shm:
        with pytest.raises(ValueError, match="memfd"):
            sa.serve(shm, sock)
    with sa.create(10, "i8", backend="memfd") as a:
        a.array[:] = np.arange(10)
        with sa.serve(a, sock) as server:
            with pytest.raises(sa.SharedArraysError, match="the path exists"):
                sa.serve(a, sock)
            with sa.receive(sock) as b:
                assert list(b.array) == list(range(10))
            # the server thread counts a connection after it sent the descriptor: the receiver may be first
            deadline = time.monotonic() + 5
            while server.served < 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert server.served == 1
        assert not os.path.exists(sock)
    with pytest.raises(ValueError, match="at most 107"):
        sa.receive("/tmp/" + "x" * 120)


def test_a_server_that_sends_no_descriptor_is_reported(tmp_path):
    sock = str(tmp_path / "s")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock)
    srv.listen(1)
    try:
        import threading

        def answer():
            c, _ = srv.accept()
            c.sendall(b"shm://x")
            c.close()

        t = threading.Thread(target=answer)
        t.start()
        with pytest.raises(sa.SharedArraysError, match="sent no descriptor"):
            sa.receive(sock)
        t.join()
    finally:
        srv.close()
        os.unlink(sock)


def test_a_closed_served_array_sends_no_descriptor(tmp_path):
    sock = str(tmp_path / "s")
    a = sa.create(10, "i8", backend="memfd")
    with sa.serve(a, sock) as server:
        a.close()
        with pytest.raises(sa.SharedArraysError, match="sent no descriptor"):
            sa.receive(sock)
        assert server.served == 0
