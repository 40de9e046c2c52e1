"""The words of a pool, queue or barrier inside an open SharedArray, used only while its mapping is held."""

from __future__ import annotations

import contextlib
from typing import Iterator

from ._futex import Words
from ._layout import SegmentDescriptor as D


@contextlib.contextmanager
def data_words(arr) -> Iterator[Words]:
    """Words at offsets from the first data byte of arr (a queue's or barrier's words); ValueError if closed."""
    seg = arr._seg
    seg.enter()
    try:
        yield Words(seg.base + D.DATA_OFFSET)
    finally:
        seg.leave()


@contextlib.contextmanager
def control_words(arr) -> Iterator[Words]:
    """Words at offsets from arr's control block (a pool's words); ValueError if closed."""
    seg = arr._seg
    seg.enter()
    try:
        yield seg.words
    finally:
        seg.leave()


def ns(timeout: float | None) -> int | None:
    if timeout is None:
        return None
    if timeout < 0:
        raise ValueError(f"timeout must be >= 0 seconds, not {timeout}")
    return int(timeout * 1e9)


class OnSegment:
    """What a pool, queue and barrier share: one SharedArray (self._arr) under them, whose handle is theirs, closed
    by close() (a context manager), pickled as their handle (the child attaches it: cls.attach(handle))."""

    _arr: "object"

    @property
    def handle(self) -> str:
        return self._arr.handle

    @property
    def closed(self) -> bool:
        return self._arr.closed

    def close(self) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __reduce__(self):
        return (type(self).attach, (self.handle,))
