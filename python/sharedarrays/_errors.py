"""Errors, named as the Java exceptions are; each subclasses the built-in one a caller would catch."""


class SharedArraysError(Exception):
    """Base of the errors that have no closer built-in (SharedArrayException in Java)."""


class SegmentNotFoundError(FileNotFoundError):
    """Nothing is at the handle's path (or it was removed meanwhile)."""


class SegmentExistsError(FileExistsError):
    """create() found the name taken; nothing was touched."""


class InvalidSegmentError(ValueError):
    """What the handle names is not a segment this process may trust: message says which check failed."""


class WaitTimeoutError(TimeoutError):
    """A timed wait ran out; nothing was taken, the call may be repeated."""


class InsufficientSpaceError(OSError):
    """The directory or memory cannot hold the segment; nothing was left behind."""

    def __init__(self, message: str, requested: int = -1, free: int = -1) -> None:
        super().__init__(message)
        self.requested = requested
        self.free = free

    def __str__(self) -> str:
        return self.args[0]


class QueueAbandonedError(SharedArraysError):
    """A queue waited on can never move: every registered process on the other side died (pids)."""

    def __init__(self, message: str, pids: list[int]) -> None:
        super().__init__(message)
        self.pids = list(pids)


class BarrierBrokenError(SharedArraysError):
    """A barrier broke: reason is "PARTY_DIED", "PARTY_LEFT", "TIMED_OUT" or "CANCELLED"; pid broke it."""

    def __init__(self, message: str, reason: str, pid: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.pid = pid
