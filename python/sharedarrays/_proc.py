"""Process identity and liveness, as internal/os/Proc.java: (pid, start time from /proc/<pid>/stat field 22)."""

from __future__ import annotations

import os

UNKNOWN = -1
_START_MASK = (1 << 39) - 1
_PID_MASK = (1 << 24) - 1


def start_time(pid: int) -> int:
    """Start time of pid; 0 if no such process or a zombie; UNKNOWN if /proc cannot say but kill(pid, 0) can."""
    if pid <= 0 or pid > 0x7FFFFFFF:
        return 0
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("latin-1")
    except FileNotFoundError:
        return 0
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return 0
        except OSError:
            pass
        return UNKNOWN
    close = stat.rfind(")")
    if close < 0:
        return 0
    f = stat[close + 2 :].split(" ")
    if len(f) < 20:
        return 0
    state = f[0][:1] or "?"
    if state in ("Z", "X", "x"):
        return 0
    try:
        return int(f[19])
    except ValueError:
        return 0


def state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("latin-1")
    except FileNotFoundError:
        return "X"
    except OSError:
        return "?"
    close = stat.rfind(")")
    return stat[close + 2] if 0 <= close and close + 2 < len(stat) else "?"


def ident(pid: int, start: int) -> int:
    """A process as one word: pid in bits 0-23, the low 39 bits of its start time above."""
    return ((start & _START_MASK) << 24) | (pid & _PID_MASK)


def ident_pid(i: int) -> int:
    return i & _PID_MASK


class _Self:
    pid = 0
    start = 0
    ident = 0


_self = _Self()


def _refresh() -> None:
    _self.pid = os.getpid()
    _self.start = start_time(_self.pid)
    _self.ident = ident(_self.pid, _self.start)


_refresh()
# a fork()ed child is another process: its own pid and start time
os.register_at_fork(after_in_child=_refresh)


def self_pid() -> int:
    return _self.pid


def self_start() -> int:
    return _self.start


def self_ident() -> int:
    return _self.ident


def is_alive(pid: int, start: int) -> bool:
    """True if process (pid, start) runs; a start of 0 means not recorded yet: pid alone decides."""
    if pid == _self.pid and start in (0, _self.start):
        return True
    actual = start_time(pid)
    return actual == UNKNOWN or (actual != 0 and (start == 0 or actual == start))


def ident_alive(i: int) -> bool:
    if i == _self.ident:
        return True
    pid = ident_pid(i)
    actual = start_time(pid)
    return actual == UNKNOWN or (actual != 0 and ident(pid, actual) == i)


def describe(i: int) -> str:
    pid = ident_pid(i)
    if pid == _self.pid:
        return f"pid {pid} (another thread of this process)"
    s = state(pid)
    if s in ("T", "t"):
        what = "stopped (SIGSTOP, ^Z or a debugger): it holds on until it is continued or killed"
    elif s in ("Z", "X", "x"):
        what = "gone: the next wait takes its hold over"
    elif s == "?":
        what = "alive as far as the kernel says (its /proc entry cannot be read)"
    else:
        what = "alive but not letting go"
    return f"pid {pid}, which is {what}"
