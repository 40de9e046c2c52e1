"""Words in a shared mapping: atomics at (base address + offset), futex sleeps in bounded slices.

Mirrors internal/sync/Futex.java, Wait.java and Backoff.java: a waiter spins briefly, then sleeps
on a 32-bit futex word for at most SLICE_NANOS at a time, counting itself in the word's waiters
count (a hint that lets a changer skip FUTEX_WAKE), and once per slice is told to look whether the
processes it waits for still run.
"""

from __future__ import annotations

import time

from . import _native

SLICE_NANOS = 50_000_000
SPINS = 200  # ArrayLock's spin budget; Python's spin is slower than Java's, so few suffice
WAIT_SPINS = 200  # Wait.SPINS is 3000 in Java, where a spin is a few ns; a Python spin is ~1 µs
SPIN_NANOS = 50_000  # a Wait spins in C this long at most before its first sleep, as Java's Backoff


class Words:
    """Atomic access to the words of one mapping, at offsets from base (an address the caller keeps mapped)."""

    __slots__ = ("base",)

    def __init__(self, base: int) -> None:
        self.base = base

    def load32(self, off: int) -> int:
        return _native.load32(self.base + off)

    def load64(self, off: int) -> int:
        return _native.load64(self.base + off)

    def store32(self, off: int, v: int) -> None:
        _native.store32(self.base + off, v & 0xFFFFFFFF)

    def store64(self, off: int, v: int) -> None:
        _native.store64(self.base + off, v & 0xFFFFFFFFFFFFFFFF)

    def cas32(self, off: int, expected: int, new: int) -> bool:
        return _native.cas32(self.base + off, expected & 0xFFFFFFFF, new & 0xFFFFFFFF)

    def cas64(self, off: int, expected: int, new: int) -> bool:
        return _native.cas64(self.base + off, expected & 0xFFFFFFFFFFFFFFFF, new & 0xFFFFFFFFFFFFFFFF)

    def fetch_add32(self, off: int, delta: int) -> int:
        return _native.fetch_add32(self.base + off, delta & 0xFFFFFFFF)

    def fetch_add64(self, off: int, delta: int) -> int:
        return _native.fetch_add64(self.base + off, delta & 0xFFFFFFFFFFFFFFFF)

    # ---------------------------------------------------------------- futex words

    def sleep(self, word: int, waiters: int, expected: int, timeout_ns: int) -> None:
        """Sleeps while the word holds expected, at most timeout_ns, counted in the waiters word."""
        self.fetch_add32(waiters, 1)
        try:
            _native.futex_wait(self.base + word, expected & 0xFFFFFFFF, max(0, timeout_ns))
        finally:
            self.fetch_add32(waiters, -1)

    def bump(self, word: int, waiters: int) -> None:
        """Adds one to the word and wakes its sleepers."""
        self.fetch_add32(word, 1)
        self.wake(word, waiters)

    def wake(self, word: int, waiters: int) -> None:
        if self.load32(waiters) != 0:
            _native.futex_wake(self.base + word, 0x7FFFFFFF)


class Wait:
    """One bounded wait: spin (once, in C, at most SPIN_NANOS), then sleep in slices no longer than the time left;
    liveness due once per slice."""

    __slots__ = ("forever", "deadline", "spins", "spun", "checked")

    def __init__(self, timeout_ns: int | None, spins: int = WAIT_SPINS) -> None:
        now = time.monotonic_ns()
        self.forever = timeout_ns is None
        self.deadline = now + (0 if timeout_ns is None else timeout_ns)
        self.spins = spins
        self.spun = 0
        self.checked = now

    def expired(self) -> bool:
        return not self.forever and time.monotonic_ns() >= self.deadline

    def liveness_due(self) -> bool:
        now = time.monotonic_ns()
        if now - self.checked < SLICE_NANOS:
            return False
        self.checked = now
        return True

    def pause(self, words: Words, word: int, waiters: int, seen: int) -> None:
        if self.spun < self.spins:
            # one spin in C: a Python spin costs a microsecond of interpreter and holds the GIL
            self.spun = self.spins
            left = SPIN_NANOS if self.forever else min(SPIN_NANOS, self.deadline - time.monotonic_ns())
            if left > 0:
                _native.spin_while(words.base + word, seen & 0xFFFFFFFF, left)
            return
        left = SLICE_NANOS if self.forever else self.deadline - time.monotonic_ns()
        if left > 0:
            words.sleep(word, waiters, seen, min(SLICE_NANOS, left))
