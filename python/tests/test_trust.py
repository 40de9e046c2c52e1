"""What attach refuses before it reads a byte: never a hang, never a crash."""

import os
import shutil
import struct

import pytest

import sharedarrays as sa
from sharedarrays._layout import SegmentDescriptor as D


def test_missing_is_segment_not_found():
    with pytest.raises(sa.SegmentNotFoundError) as e:
        sa.attach("shm://not-there")
    assert isinstance(e.value, FileNotFoundError) and "does not exist" in str(e.value)


def test_a_fifo_is_refused_without_blocking(shm_dir):
    os.mkfifo(shm_dir / "fifo", 0o600)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="FIFO|socket or a device"):
            sa.attach("shm://fifo")
    finally:
        os.unlink(shm_dir / "fifo")


def test_a_symlink_is_refused(shm_dir):
    with sa.create(4, "f8", name="real") as a:
        os.symlink(a.path, shm_dir / "link")
        try:
            with pytest.raises(sa.InvalidSegmentError, match="symbolic link"):
                sa.attach("shm://link")
        finally:
            os.unlink(shm_dir / "link")


def test_a_sparse_file_is_refused(shm_dir, tmp_path):
    p = tmp_path / "sparse"
    with open(p, "wb") as f:
        f.truncate(64 * D.PAGE)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="sparse"):
            sa.attach("file://" + str(p))
    finally:
        os.unlink(p)


def test_a_directory_and_a_small_file_are_refused(shm_dir):
    os.mkdir(shm_dir / "dir")
    with open(shm_dir / "small", "wb") as f:
        f.write(b"x" * 100)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="directory"):
            sa.attach("shm://dir")
        with pytest.raises(sa.InvalidSegmentError, match="smaller than the smallest segment"):
            sa.attach("shm://small")
    finally:
        os.rmdir(shm_dir / "dir")
        os.unlink(shm_dir / "small")


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's file needs root")
def test_another_users_file_is_refused(shm_dir):
    with sa.create(4, "f8", name="theirs", lifetime="persistent") as a:
        os.chown(a.path, 65534, 65534)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="belongs to uid 65534"):
            sa.attach("shm://theirs")
    finally:
        os.unlink(shm_dir / "theirs")


def corrupt_copy(shm_dir, name: str, offset_from_control: int, data: bytes) -> str:
    with sa.create((4, 4), "i2", name="orig") as a:
        shutil.copyfile(a.path, shm_dir / name)
    size = os.path.getsize(shm_dir / name)
    with open(shm_dir / name, "r+b") as f:
        f.seek(size - D.CONTROL_SIZE + offset_from_control)
        f.write(data)
    return "shm://" + name


@pytest.mark.parametrize("what,offset,data,message", [
    ("magic", D.MAGIC_OFFSET, b"XXXXXXXX", "no shared-arrays control block"),
    ("version", D.VERSION_OFFSET, struct.pack("<I", 2), "format version 2"),
    ("ready", D.READY_OFFSET, b"\0\0\0\0", "not ready"),
    ("shape", D.SHAPE_OFFSET, struct.pack("<Q", 5), "checksum mismatch"),
    ("dtype", D.DTYPE_OFFSET, struct.pack("<I", 99), "checksum mismatch"),
])
def test_a_corrupt_control_block_is_refused(shm_dir, what, offset, data, message):
    h = corrupt_copy(shm_dir, "bad", offset, data)
    try:
        with pytest.raises(sa.InvalidSegmentError, match=message):
            sa.attach(h)
    finally:
        os.unlink(shm_dir / "bad")


def test_a_copy_is_another_file_but_the_same_id(shm_dir):
    # a copied file is a valid segment with the same id (cp a b); its lock is its own
    with sa.create(4, "f8", name="orig") as a:
        shutil.copyfile(a.path, shm_dir / "copy")
        try:
            with sa.attach("shm://copy") as c:
                assert c.id == a.id
                with a.write_lock(), c.write_lock(timeout=1):
                    pass
        finally:
            os.unlink(shm_dir / "copy")


def test_a_handle_whose_id_differs_is_refused():
    with sa.create(4, "f8", name="x") as a:
        other = a.handle[:-16] + ("0" * 16 if not a.handle.endswith("0" * 16) else "1" * 16)
        with pytest.raises(sa.InvalidSegmentError, match="expects array id"):
            sa.attach(other)


def test_a_truncated_copy_and_a_plain_npy_file_are_refused(shm_dir):
    with sa.create((100, 100), "f8", name="orig") as a:
        shutil.copyfile(a.path, shm_dir / "short")
    size = os.path.getsize(shm_dir / "short")
    os.truncate(shm_dir / "short", size - D.PAGE)
    import numpy as np
    with open(shm_dir / "plain", "wb") as f:
        np.save(f, np.zeros(4096))
    try:
        with pytest.raises(sa.InvalidSegmentError, match="no shared-arrays control block|needs"):
            sa.attach("shm://short")
        with pytest.raises(sa.InvalidSegmentError, match="not a multiple of 4096|no shared-arrays control block"):
            sa.attach("shm://plain")
    finally:
        os.unlink(shm_dir / "short")
        os.unlink(shm_dir / "plain")


def test_a_memfd_handle_to_a_pipe_or_an_unsealed_file_is_refused(tmp_path):
    r, w = os.pipe()
    p = tmp_path / "plain"
    p.write_bytes(b"\0" * 3 * D.PAGE)
    fd = os.open(p, os.O_RDWR)
    try:
        with pytest.raises(sa.InvalidSegmentError, match="not a sealed memfd"):
            sa.attach(f"memfd://{os.getpid()}/{r}")
        with pytest.raises(sa.InvalidSegmentError, match="not a sealed memfd"):
            sa.attach(f"memfd://{os.getpid()}/{fd}")
        with pytest.raises(sa.SegmentNotFoundError):
            sa.attach(f"memfd://{os.getpid()}/99999")
    finally:
        for d in (r, w, fd):
            os.close(d)


def test_the_flight_token_is_read_only_from_a_private_file_of_this_user(tmp_path, monkeypatch):
    f = tmp_path / "flight-token"
    monkeypatch.setenv("SHARED_ARRAYS_FLIGHT_TOKEN_FILE", str(f))
    assert sa.flight_token_file() == str(f)
    with pytest.raises(FileNotFoundError):
        sa.flight_token()
    f.write_text("abc123\n")
    os.chmod(f, 0o644)
    with pytest.raises(PermissionError, match="mode 0o644"):
        sa.flight_token()
    os.chmod(f, 0o600)
    assert sa.flight_token() == "abc123"
