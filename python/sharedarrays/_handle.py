"""Handles in the string forms of Java's ArrayHandle: shm://name, memfd://pid/fd, file:///abs/path, each with ?id=<16 hex>."""

from __future__ import annotations

import os
import re
from typing import NamedTuple

MAX_NAME_LENGTH = 200
_PLAIN = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._~-")


def validate_name(name: str) -> str:
    """Names.validate: [A-Za-z0-9._-], not starting with '.' or '-', no '..', at most 200 characters."""
    if not name:
        raise ValueError("array name must not be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"array name is {len(name)} characters long, the limit is {MAX_NAME_LENGTH}")
    if "/" in name:
        raise ValueError(f"array name '{name}' must not contain '/'")
    if ".." in name:
        raise ValueError(f"array name '{name}' must not contain '..'")
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", name):
        raise ValueError(f"array name '{name}' may use only letters, digits, '.', '_' and '-', and must not start with '.' or '-'")
    return name


def _encode(path: str) -> str:
    return "".join(chr(b) if b in _PLAIN else f"%{b:02X}" for b in path.encode("utf-8"))


def _decode(s: str) -> str:
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            if i + 2 >= len(s):
                raise ValueError("truncated %-escape in path")
            out.append(int(s[i + 1 : i + 3], 16))
            i += 3
            continue
        if ord(c) > 127 or ord(c) not in _PLAIN:
            raise ValueError(f"character '{c}' must be %-encoded in a file handle")
        out.append(ord(c))
        i += 1
    return out.decode("utf-8")


class Handle(NamedTuple):
    """A parsed handle: backend "shm" (name), "memfd" (pid, fd) or "file" (path); id or None."""

    backend: str
    name: str | None = None
    path: str | None = None
    pid: int = 0
    fd: int = -1
    id: int | None = None

    def __str__(self) -> str:
        if self.backend == "shm":
            base = "shm://" + self.name
        elif self.backend == "memfd":
            base = f"memfd://{self.pid}/{self.fd}"
        else:
            base = "file://" + _encode(self.path)
        return base if self.id is None else f"{base}?id={self.id:016x}"

    def without_id(self) -> "Handle":
        return self._replace(id=None)


def parse(text: str) -> Handle:
    """ArrayHandle.parse: ValueError naming the text and what is wrong."""

    def bad(why: str) -> ValueError:
        return ValueError(f"invalid array handle '{text}': {why}")

    sep = text.find("://")
    if sep < 0:
        raise bad("expected <backend>://..., such as shm://name, memfd://pid/fd or file:///path")
    backend = text[:sep].strip().lower()
    if backend not in ("shm", "memfd", "file", "anonymous"):
        raise bad(f"unknown backend '{text[:sep]}'; accepted: shm, memfd, file, anonymous")
    rest = text[sep + 3 :]
    hid = None
    q = rest.find("?")
    if q >= 0:
        query, rest = rest[q + 1 :], rest[:q]
        if not query.startswith("id=") or len(query) != 19 or not re.fullmatch(r"[0-9a-fA-F]{16}", query[3:]):
            raise bad("the only query is id=<16 hex digits>")
        hid = int(query[3:], 16)
    try:
        if backend == "shm":
            return Handle("shm", name=validate_name(rest), id=hid)
        if backend == "memfd":
            pid_s, slash, fd_s = rest.partition("/")
            if not slash:
                raise bad("memfd handle is memfd://<pid>/<fd>")
            if not (pid_s.isdigit() and fd_s.isdigit()):
                raise bad("pid and fd must be decimal numbers")
            if int(pid_s) <= 0:
                raise bad(f"memfd handle needs pid > 0 and fd >= 0, but was pid={pid_s} fd={fd_s}")
            return Handle("memfd", pid=int(pid_s), fd=int(fd_s), id=hid)
        if backend == "file":
            if not rest.startswith("/"):
                raise bad("file handle needs an absolute path: file:///abs/path")
            return Handle("file", path=os.path.normpath(_decode(rest)), id=hid)
        raise bad("an anonymous array lives in its creating process only and cannot be attached from another")
    except ValueError as e:
        if str(e).startswith("invalid array handle"):
            raise
        raise bad(str(e)) from None
