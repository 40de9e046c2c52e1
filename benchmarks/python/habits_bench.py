"""numpy's side of the numpy-habits table of OpsBenchmark, driven row by row as ops_bench.py is:
the same operations on the same shared segments (numpy.load(mmap_mode='r+'))."""
import sys

import numpy as np

from ops_bench import serve


def ops(a, b, m, row, mask, a32):
    def iadd_row():
        np.add(m, row, out=m)

    return {
        "iadd_row": iadd_row,
        "add": lambda: a + b,
        "sqrt": lambda: np.sqrt(a),
        "exp": lambda: np.exp(a),
        "sin": lambda: np.sin(a),
        "sum": lambda: a.sum(),
        "astype_f32": lambda: a.astype(np.float32),
        "gt": lambda: a > 0.5,
        "where": lambda: np.where(mask, a, b),
        "argmax": lambda: a.argmax(),
        "cumsum": lambda: a.cumsum(),
        "sum_axis0": lambda: m.sum(axis=0),
        "sort": lambda: np.sort(a),
        "sort_f32": lambda: np.sort(a32),
    }


def main():
    shared = [np.load(p, mmap_mode='r+') for p in sys.argv[1:7]]
    serve({"": lambda: ops(*shared)})


if __name__ == "__main__":
    main()
