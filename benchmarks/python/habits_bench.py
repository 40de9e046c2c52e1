"""numpy's side of the numpy-habits table of OpsBenchmark: the same operations on the same
shared segments (numpy.load(mmap_mode='r+')). Prints one JSON object of median milliseconds."""
import json
import sys

import numpy as np

from ops_bench import median_ms  # the same warm-up and median as the first table


def main():
    runs = int(sys.argv[1])
    a, b, m, row, mask = (np.load(p, mmap_mode='r+') for p in sys.argv[2:7])

    def iadd_row():
        np.add(m, row, out=m)

    r = {
        "iadd_row": median_ms(iadd_row, runs),
        "add": median_ms(lambda: a + b, runs),
        "sqrt": median_ms(lambda: np.sqrt(a), runs),
        "exp": median_ms(lambda: np.exp(a), runs),
        "astype_f32": median_ms(lambda: a.astype(np.float32), runs),
        "gt": median_ms(lambda: a > 0.5, runs),
        "where": median_ms(lambda: np.where(mask, a, b), runs),
        "argmax": median_ms(lambda: a.argmax(), runs),
        "cumsum": median_ms(lambda: a.cumsum(), runs),
        "sum_axis0": median_ms(lambda: m.sum(axis=0), runs),
        "sort": median_ms(lambda: np.sort(a), min(runs, 3)),
    }
    print(json.dumps({"shared": r, "heap": r, "numpy": np.__version__}))


if __name__ == "__main__":
    main()
