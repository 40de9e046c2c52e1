"""The words of a pool, queue or barrier inside an open SharedArray, used only while its mapping is held."""

from __future__ import annotations

from ._futex import Words
from ._layout import SegmentDescriptor as D


class _Held:
    """The mapping of a segment held (Segment.enter) while its words are used; a class, not a generator
    context manager, as queue and pool steps enter one on every call."""

    __slots__ = ("seg", "words")

    def __init__(self, seg, words: Words) -> None:
        self.seg = seg
        self.words = words

    def __enter__(self) -> Words:
        self.seg.enter()
        return self.words

    def __exit__(self, *exc) -> None:
        self.seg.leave()


def data_words(arr) -> _Held:
    """Words at offsets from the first data byte of arr (a queue's or barrier's words); ValueError if closed."""
    seg = arr._seg
    return _Held(seg, Words(seg.base + D.DATA_OFFSET))


def control_words(arr) -> _Held:
    """Words at offsets from arr's control block (a pool's words); ValueError if closed."""
    seg = arr._seg
    return _Held(seg, seg.words)


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
