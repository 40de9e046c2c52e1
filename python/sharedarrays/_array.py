"""SharedArray: a numpy array over a segment that JVM and Python processes share."""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import weakref
from typing import Iterator, NamedTuple

import numpy as np

from . import _lock, _proc, _segment, _sweep
from ._errors import SharedArraysError
from ._handle import Handle
from ._layout import BY_DESCR, ELEMENT_TYPES
from ._layout import SegmentDescriptor as D

BACKENDS = ("shm", "file", "memfd")
BACKEND_ENV = "SHARED_ARRAYS_BACKEND"
MIN_FREE_ENV = "SHARED_ARRAYS_SHM_MIN_FREE"
DEFAULT_MIN_FREE = 64 << 20
_detected: list = []
_open: "weakref.WeakSet[SharedArray]" = weakref.WeakSet()
_open_guard = threading.Lock()


class LockStatus(NamedTuple):
    """Who holds the lock now (as Java's LockStatus): writer pid (0 if none), reader pids, recoveries so far."""

    writer_pid: int
    reader_pids: list
    recoveries: int


def _element_type(dtype):
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise ValueError(f"unknown dtype {dtype!r}: {e}") from None
    descr = dt.str if dt.itemsize > 1 else "|" + dt.str[1:]
    et = BY_DESCR.get(descr)
    if et is None:
        accepted = ", ".join(t.descr for t in ELEMENT_TYPES)
        raise ValueError(f"dtype {dt} ({dt.str}) is not one of the shared element types: {accepted} (little-endian)")
    return et


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


class SharedArray:
    """An array in shared memory. `.array` is a writable numpy view of it.

    Ownership: the creating process owns it; with lifetime "owner" its close()/destroy() removes the
    name, "shared" makes the last process to close remove it, "persistent" is never removed. Every
    process keeps its descriptor (and flock LOCK_SH) until close(). Thread-safe; `with` closes it.
    Using it after close raises ValueError (numpy views taken earlier keep their memory mapped).
    """

    def __init__(self, seg: _segment.Segment) -> None:
        self._seg = seg
        f = seg.facts
        # frombuffer holds a buffer export of the mapping: while any view of it lives, the mapping cannot be unmapped
        count = f.data_length // f.etype.item_size
        self._array = np.frombuffer(seg.mm, np.dtype(f.etype.descr), count, D.DATA_OFFSET).reshape(f.shape)
        self._what = str(seg.handle)
        with _open_guard:
            _open.add(self)
        # dropped without close(): closed when collected (the finalizer holds the segment, never self)
        self._finalizer = weakref.finalize(self, _collected, seg)
        self._finalizer.atexit = False  # exit is _close_at_exit's

    # ------------------------------------------------------------ facts

    def _check(self) -> _segment.Segment:
        if self._seg.closed:
            raise ValueError(f"array {self._what} is closed")
        return self._seg

    @property
    def array(self) -> np.ndarray:
        """The numpy view of the shared data (writable; row-major; little-endian)."""
        self._check()
        return self._array

    @array.setter
    def array(self, value) -> None:
        # `a.array += 1` assigns the in-place result back; any other value is copied into the shared memory
        self._check()
        if value is not self._array:
            self._array[...] = value

    @property
    def handle(self) -> str:
        """The string another process attaches with: shm://name?id=..., file:///path?id=..., memfd://pid/fd?id=..."""
        return str(self._seg.handle)

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._seg.facts.shape

    @property
    def id(self) -> int:
        return self._seg.facts.id

    @property
    def lifetime(self) -> str:
        return self._seg.facts.lifetime

    @property
    def backend(self) -> str:
        return self._seg.handle.backend

    @property
    def path(self) -> str | None:
        """The file of a shm or file array (numpy.load(path, mmap_mode='r+') maps the same memory); None for memfd."""
        return self._seg.path

    @property
    def owner(self) -> bool:
        return self._seg.owner

    @property
    def closed(self) -> bool:
        return self._seg.closed

    def attached_pids(self) -> list[int]:
        """Pids in the attach slots (processes that attached and have not closed, or died since)."""
        with self._using() as w:
            return [pid for _, pid, _ in _segment.attached(w)]

    # ------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Detaches; removes the name as the lifetime says. Idempotent.

        numpy views taken from .array keep the memory mapped (never freed under them) until they go.
        """
        with _open_guard:
            _open.discard(self)
        self._finalizer.detach()
        self._seg.close()
        self._array = None

    def destroy(self) -> None:
        """Owner only: removes the name (if it still names this array's file) and detaches."""
        self._seg.destroy()
        self._finalizer.detach()
        self._array = None
        with _open_guard:
            _open.discard(self)

    def __enter__(self) -> "SharedArray":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __reduce__(self):
        return (attach, (self.handle,))

    def __repr__(self) -> str:
        f = self._seg.facts
        state = "closed" if self._seg.closed else ("owner" if self._seg.owner else "attached")
        return (f"SharedArray({self.handle}, shape={f.shape}, dtype={f.etype.descr}, lifetime={f.lifetime}, {state})")

    # ------------------------------------------------------------ locks and change signal

    @contextlib.contextmanager
    def write_lock(self, timeout: float | None = None) -> Iterator["SharedArray"]:
        """Holds the array's cross-process write lock (the JVM's, the same words) for the block.

        timeout: seconds to wait at most (None: no limit); WaitTimeoutError when it runs out.
        """
        seg = self._check()
        seg.enter()
        try:
            seg.lock.lock_write(seg.words, self._what, _ns(timeout))
            try:
                yield self
            finally:
                seg.lock.unlock_write(seg.words)
        finally:
            seg.leave()

    @contextlib.contextmanager
    def read_lock(self, timeout: float | None = None) -> Iterator["SharedArray"]:
        """Holds the array's cross-process read lock for the block; see write_lock."""
        seg = self._check()
        seg.enter()
        try:
            seg.lock.lock_read(seg.words, self._what, _ns(timeout))
            try:
                yield self
            finally:
                seg.lock.unlock_read(seg.words)
        finally:
            seg.leave()

    @contextlib.contextmanager
    def _using(self):
        seg = self._seg
        seg.enter()
        try:
            yield seg.words
        finally:
            seg.leave()

    def lock_status(self) -> LockStatus:
        with self._using() as w:
            return LockStatus(_lock.writer_pid(w), _lock.reader_pids(w), _lock.recoveries(w))

    def signal_change(self) -> int:
        """Adds one to the change count, wakes the processes waiting in await_change, returns the new count."""
        with self._using() as w:
            return _lock.signal_change(w)

    @property
    def change_count(self) -> int:
        with self._using() as w:
            return _lock.change_count(w)

    def await_change(self, last_seen: int, timeout: float | None = None) -> int:
        """Waits until the change count differs from last_seen (at most timeout s); returns the count."""
        with self._using() as w:
            return _lock.await_change(w, last_seen, _ns(timeout))


def _collected(seg: _segment.Segment) -> None:
    """A SharedArray was garbage-collected while open: close it as close() would (in a fork()ed child: only
    its copy). Runs in whatever thread the collector runs; never raises."""
    try:
        seg.close()
    except BaseException:
        pass


def _ns(timeout: float | None) -> int | None:
    if timeout is None:
        return None
    if timeout < 0:
        raise ValueError(f"timeout must be >= 0 seconds, not {timeout}")
    return int(timeout * 1e9)


def _env_backend() -> str | None:
    v = os.environ.get(BACKEND_ENV)
    if not v:
        return None
    b = v.strip().lower()
    if b == "anonymous":
        raise ValueError(f"{BACKEND_ENV}={v}: anonymous arrays are the JVM's process-local memory; "
                         f"a Python process takes {', '.join(BACKENDS)}")
    if b not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV}={v}: unknown backend '{v}'; accepted: shm, memfd, file, anonymous")
    return b


def _shm_min_free() -> int:
    v = os.environ.get(MIN_FREE_ENV)
    if not v:
        return DEFAULT_MIN_FREE
    if v.isdigit():
        return int(v)
    raise ValueError(f"{MIN_FREE_ENV}={v} is not a byte count; use a whole number >= 0, such as 67108864")


def _detect() -> str:
    """BackendSelection.detect, once per process: shm if its directory has more than the minimum free, else memfd."""
    if not _detected:
        try:
            st = os.statvfs(_segment.shm_directory())
            b = "shm" if st.f_bavail * st.f_frsize > _shm_min_free() else "memfd"
        except (OSError, SharedArraysError):
            b = "memfd"
        _detected.append(b)
    return _detected[0]


def create(shape, dtype, name: str | None = None, lifetime: str | None = None, backend: str | None = None,
           path: str | None = None, _init=None) -> SharedArray:
    """Creates a zero-filled shared array.

    shape: an int or a tuple of 1 to 8 ints >= 1; dtype: one of the 11 element types (numpy dtype or
    its string: "f8", "float32", "i8", "u1", bool, ...); name: the shm or file name (default sa-<16 hex>);
    lifetime: "owner" (the default, "persistent" with a path), "shared" or "persistent"; backend: "shm", "file" or
    "memfd"; path: the file of a file-backed array (implies backend="file"). The backend is chosen as
    the JVM chooses it: a path means file; else SHARED_ARRAYS_BACKEND if set, then backend=, then shm
    if the shm directory has more than SHARED_ARRAYS_SHM_MIN_FREE bytes (64 MiB) free, else memfd.
    Raises SegmentExistsError if the name is taken, InsufficientSpaceError if the space is not there.
    """
    if path is not None:
        backend = "file"  # the environment does not move a path the program chose
    else:
        backend = _env_backend() or backend or _detect()
    if lifetime is None:
        lifetime = "persistent" if path is not None else "owner"
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend '{backend}'; accepted: {', '.join(BACKENDS)}")
    if lifetime not in _segment.LIFETIMES:
        raise ValueError(f"unknown lifetime '{lifetime}'; accepted: {', '.join(_segment.LIFETIMES)}")
    facts = _segment.new_facts(_element_type(dtype), _shape(shape), lifetime, backend)
    _sweep.maybe_start()  # as Backends.create: unused segments in the shm directory go (at most every 5 s per process)
    if backend == "memfd":
        seg = _segment.create_memfd(facts, name or f"sa-{facts.id:016x}", _init)
    else:
        target = _segment.resolve_create_target(backend, name, path)
        if backend == "shm":
            fix = f"set SHARED_ARRAYS_BACKEND=memfd (backend='memfd') or enlarge {os.path.dirname(target)}"
            of = (lambda i, n=os.path.basename(target): Handle("shm", name=n, id=i))
        else:
            fix = f"free space in {os.path.dirname(target)} or choose another directory"
            of = (lambda i, p=target: Handle("file", path=p, id=i))
        seg = _segment.create_exclusive(target, facts, fix, of, _init)
    return SharedArray(seg)


def _trusted(trust_uid) -> frozenset:
    if trust_uid is None:
        return frozenset()
    uids = [trust_uid] if isinstance(trust_uid, int) else list(trust_uid)
    for u in uids:
        if not isinstance(u, int) or isinstance(u, bool) or u < 0:
            raise ValueError(f"a uid is an int >= 0, not {u!r}")
    return frozenset(uids)


def attach(handle, trust_uid=None) -> SharedArray:
    """Attaches the array a handle (string or the .handle of another SharedArray) names.

    trust_uid: a uid (or several) whose segments are accepted besides this user's own (Java's
    AttachOptions.trustUid); by default another user's file is refused.
    Raises SegmentNotFoundError if nothing is there, InvalidSegmentError if what is there is not a
    segment this process trusts (a FIFO, a symlink, a sparse or another user's file, a bad control
    block, another array's id).
    """
    return SharedArray(_segment.attach_handle(handle, _trusted(trust_uid)))


def receive(socket_path, trust_uid=None) -> SharedArray:
    """Connects to a serve() socket (a JVM's SharedArrays.serve or this package's serve) and attaches the
    memfd array whose descriptor it sends (SCM_RIGHTS), checking the id its handle names."""
    from . import _fdpass
    return SharedArray(_fdpass.receive_segment(socket_path, _trusted(trust_uid)))


def serve(array: SharedArray, socket_path):
    """Serves a memfd array's descriptor to every process of this user that connects to socket_path (a
    Unix socket, mode 0600) until the returned server's close(); receive(socket_path) gets the array."""
    from . import _fdpass
    seg = array._check()
    if seg.handle.backend != "memfd":
        raise ValueError(f"serve passes memfd descriptors, but {array.handle} is a {seg.handle.backend} array: "
                         "pass its handle string instead")
    return _fdpass.Server(seg, array.handle, socket_path)


def sweep(dry_run: bool = False) -> list[str]:
    """Removes this user's segments that no process uses any more, and dead creates' temporary files,
    in the shm directory and the default file directory; returns their paths (dry_run: what it would
    remove). PERSISTENT segments stay; an OWNER segment stays while its creator or an attached
    process is recorded alive. Files that are not ours are skipped. As Java's SharedArrays.sweep."""
    return _sweep.sweep(dry_run)


@atexit.register
def _close_at_exit() -> None:
    # as the JVM's shutdown hook: what this process still has open is closed on a normal exit;
    # a fork()ed child that inherited them leaves them to the parent
    me = os.getpid()
    with _open_guard:
        arrays = list(_open)
    for a in arrays:
        if a._seg.pid == me:
            try:
                a.close()
            except Exception:
                pass
