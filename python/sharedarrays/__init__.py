"""sharedarrays: typed N-d arrays in shared memory that JVM (dev.sharedarrays) and Python processes share.

    import sharedarrays as sa
    a = sa.create((1000, 1000), "f8")          # a.array: numpy view; a.handle: "shm://...?id=..."
    with sa.attach(a.handle) as b:
        with b.write_lock(): b.array += 1      # the JVM's readers-writer lock, the same words
        with b.read_lock(): total = b.array.sum()
    a.destroy()

The protocol (layout, locks, liveness, flock rules) is the Java library's; docs/PROTOCOL.md
describes every shared byte.
"""

from ._array import BACKENDS, LockStatus, SharedArray, attach, create
from ._errors import (
    InsufficientSpaceError,
    InvalidSegmentError,
    SegmentExistsError,
    SegmentNotFoundError,
    SharedArraysError,
    WaitTimeoutError,
)
from ._handle import Handle, parse as parse_handle
from ._layout import ELEMENT_TYPES
from ._scan import Participant, SegmentInfo, ls

from ._array import receive, serve, sweep  # lifecycle: memfd passing over a Unix socket, removal of unused segments

__all__ = [
    "BACKENDS", "ELEMENT_TYPES", "Handle", "InsufficientSpaceError", "InvalidSegmentError", "LockStatus",
    "SegmentExistsError", "SegmentNotFoundError", "SharedArray", "SharedArraysError", "WaitTimeoutError",
    "Participant", "SegmentInfo", "attach", "create", "ls", "parse_handle",
]
__all__ += ["receive", "serve", "sweep"]
__version__ = "0.1.0"
