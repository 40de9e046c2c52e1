"""The numpy side of bin/demo numpy: map a shared-arrays segment, show it, change it in place.

    python3 samples/python/numpy_interop.py <segment path>

A segment is a valid .npy file, so numpy.load(mmap_mode='r+') maps the very memory the JVM
uses: no copy, and writes are seen by the JVM at once.
"""
import sys

import numpy as np

a = np.load(sys.argv[1], mmap_mode="r+")
print(f"numpy maps {sys.argv[1]}: dtype {a.dtype}, shape {a.shape}, row sums {a.sum(axis=1).tolist()}")
a *= 2            # in place, on the shared pages
a[:, 0] = -1.0    # first column
a[-1] = np.arange(a.shape[1]) ** 2
a.flush()
print("numpy doubled it, set column 0 to -1 and the last row to squares")
