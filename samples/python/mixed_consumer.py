"""A Python consumer of `bin/demo mixed` (samples/.../Mixed.kt): frames from a JVM, computed on in place.

    python mixed_consumer.py <frame queue handle> <result queue handle>

Each message is a pool slot of shape (rows + 1, cols) f64 that a JVM filled: rows x cols pixels, then a
trailer row whose element 0 is the frame id. This process computes the pixels' mean, min and max with
numpy on the shared memory itself, normalises them in place ((x - mean) / (max - min)), writes the three
statistics into the trailer row (elements 1..3) and sends the same slot back on the result queue: the slot
moves JVM -> Python -> JVM, never copied. Ends when the frame queue has ended and is drained.
"""
import os
import sys

import sharedarrays as sa

TIMEOUT_S = 60  # a JVM that stops taking results must fail this process, not hang it


def main(frame_queue: str, result_queue: str) -> int:
    n = 0
    with sa.Queue.attach(frame_queue) as frames, sa.Queue.attach(result_queue) as results:
        for slot in frames:
            a = slot.array
            pixels = a[:-1]
            mean, lo, hi = pixels.mean(), pixels.min(), pixels.max()
            pixels -= mean
            pixels /= hi - lo
            a[-1, 1:4] = (mean, lo, hi)
            results.send(slot, timeout=TIMEOUT_S)  # the slot moves back; `slot` is closed here
            n += 1
    sys.stderr.write(f"mixed_consumer pid {os.getpid()}: {n} frames\n")  # one write: the two consumers share stderr
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
