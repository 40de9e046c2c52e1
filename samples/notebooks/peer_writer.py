"""The Python side of watch_a_peer.ipynb: attaches the array whose handle is argv[1] and, five times, waits for
the notebook's go (a change signal), writes frame i (i * (row + column)) under the array's write lock and
signals back."""
import sys

import numpy as np
import sharedarrays as sa

with sa.attach(sys.argv[1]) as a:
    rows, cols = a.array.shape
    pattern = np.add.outer(np.arange(rows), np.arange(cols)).astype(a.array.dtype)
    seen = 0  # the notebook signals 1, 3, 5, ...: go; this process 2, 4, 6, ...: done
    for i in range(1, 6):
        seen = a.await_change(seen, timeout=30)
        with a.write_lock():
            a.array[...] = i * pattern
        seen = a.signal_change()
