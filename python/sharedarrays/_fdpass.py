"""Passing a memfd array's descriptor over a Unix socket with SCM_RIGHTS (FdPassing.java, PROTOCOL.md section 16).

A server listens on an AF_UNIX SOCK_STREAM socket whose file is mode 0600; to each connecting process
whose uid (SO_PEERCRED) is its own euid it sends one message: the array's handle string (UTF-8, at most
4096 bytes, no terminator) with the descriptor as SCM_RIGHTS, then closes the connection. A peer of
another uid is disconnected without a word. The client does one recvmsg (4096 bytes, MSG_CMSG_CLOEXEC)
and attaches the received descriptor as a memfd, checking the handle's id.
"""

from __future__ import annotations

import array as _arr
import errno
import fcntl
import os
import select
import socket
import stat
import struct
import threading

from . import _handle, _segment
from ._errors import SegmentNotFoundError, SharedArraysError

MAX_PAYLOAD = 4096
SOCKET_MODE = 0o600
SUN_PATH_MAX = 107
MSG_CMSG_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0x40000000)


def _check_path(p: str) -> None:
    n = len(os.fsencode(p))
    if n > SUN_PATH_MAX:
        raise ValueError(f"socket path {p} is {n} bytes long; Unix sockets allow at most {SUN_PATH_MAX}")


def receive_segment(socket_path, trusted: frozenset = frozenset()) -> _segment.Segment:
    """Connects to a serve() socket, receives the descriptor and attaches it as a memfd segment."""
    p = os.path.abspath(os.fspath(socket_path))
    _check_path(p)
    fds: list[int] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC) as s:
        try:
            s.connect(p)
        except (FileNotFoundError, ConnectionRefusedError) as e:
            raise SegmentNotFoundError(f"no array is served at {p} (connect: {e.strerror}); start serve(array, path) first"
                                       ) from None
        try:
            data, anc, _flags, _addr = s.recvmsg(MAX_PAYLOAD, socket.CMSG_SPACE(struct.calcsize("i")), MSG_CMSG_CLOEXEC)
            control_len = 0
            for level, kind, body in anc:
                control_len += len(body)
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    a = _arr.array("i")
                    a.frombytes(body[: len(body) - len(body) % a.itemsize])
                    fds.extend(a)
            if not fds or not data:
                raise SharedArraysError(f"the server at {p} sent no descriptor ({len(data)} bytes, {control_len} bytes of control"
                                        " data); it may have closed its array, or it serves only processes of its own user")
            text = data.decode("utf-8", "replace")
            try:
                sent = _handle.parse(text)
            except ValueError as e:
                raise SharedArraysError(f"the server at {p} sent a descriptor with a bad handle: {e}") from None
            fd = fds.pop(0)
        finally:
            for extra in fds:
                os.close(extra)
    # attach_memfd_fd owns fd now (closes it on failure)
    return _segment.attach_memfd_fd(fd, sent, f"descriptor received from {p} ({sent})", trusted)


class Server:
    """Serves a memfd array's descriptor on a daemon thread until close() (which removes the socket file)."""

    def __init__(self, seg: _segment.Segment, handle: str, socket_path) -> None:
        self.path = os.path.abspath(os.fspath(socket_path))
        _check_path(self.path)
        self._seg = seg
        self._payload = handle.encode("utf-8")
        if len(self._payload) > MAX_PAYLOAD:
            raise ValueError(f"handle {handle} is longer than {MAX_PAYLOAD} bytes")
        self._served = 0
        self._closed = False
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            # Linux gives the socket file the socket inode's mode (less the umask): 0600 from birth
            os.fchmod(s.fileno(), SOCKET_MODE)
            try:
                s.bind(self.path)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise SharedArraysError(f"cannot serve on {self.path}: the path exists; remove it or pick another") from None
                raise
            try:
                # until listen() nobody can connect: make sure of 0600 before it
                if stat.S_IMODE(os.lstat(self.path).st_mode) != SOCKET_MODE:
                    os.chmod(self.path, SOCKET_MODE)
                s.listen(64)
            except BaseException:
                os.unlink(self.path)
                raise
        except BaseException:
            s.close()
            raise
        self._sock = s
        # the server's own descriptor of the memfd: the array's may be closed, and its number reused, at any moment
        self._fd = fcntl.fcntl(seg.fd, fcntl.F_DUPFD_CLOEXEC, 0)
        self._thread = threading.Thread(target=self._loop, name=f"shared-arrays-serve {self.path}", daemon=True)
        self._thread.start()

    @property
    def served(self) -> int:
        """How many processes received the descriptor so far."""
        return self._served

    def _loop(self) -> None:
        me = os.geteuid()
        try:
            while not self._closed:
                r, _, _ = select.select([self._sock], [], [], 0.1)
                if not r or self._closed:
                    continue
                try:
                    conn, _ = self._sock.accept()
                except OSError:
                    continue
                with conn:
                    try:
                        cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
                        _pid, uid, _gid = struct.unpack("3i", cred)
                    except OSError:
                        continue
                    if uid != me or self._seg.closed:
                        continue  # another user (or the array closed): closed without a word
                    try:
                        sent = conn.sendmsg([self._payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                               struct.pack("i", self._fd))], socket.MSG_NOSIGNAL)
                        if sent > 0:
                            self._served += 1
                    except OSError:
                        pass
        except Exception as e:
            if not self._closed:
                import sys
                print(f"shared-arrays: server on {self.path} stopped: {e}", file=sys.stderr)

    def close(self) -> None:
        """Stops serving and removes the socket file. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if threading.current_thread() is not self._thread:
            self._thread.join(2)
        self._sock.close()
        os.close(self._fd)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
