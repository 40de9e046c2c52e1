"""numpy's side of TemporariesBenchmark: each op called CALLS times in a row after WARMUPS calls,
its result held until the next call replaces it (c = a + b in a loop), on the same shared
segments (numpy.load(mmap_mode='r+')). Prints one JSON object: per op, the ms of each call."""
import json
import sys
import time

import numpy as np


def times_ms(f, calls, warmups):
    c = None
    samples = []
    for i in range(warmups + calls):
        t0 = time.perf_counter_ns()
        c = f()
        t1 = time.perf_counter_ns()
        if i >= warmups:
            samples.append((t1 - t0) / 1e6)
    del c
    return samples


def main():
    calls, warmups = int(sys.argv[1]), int(sys.argv[2])
    a, b, mask = (np.load(p, mmap_mode='r+') for p in sys.argv[3:6])
    ops = {
        "add": lambda: a + b,
        "mul": lambda: a * 2.0,
        "sqrt": lambda: np.sqrt(a),
        "astype_f32": lambda: a.astype(np.float32),
        "where": lambda: np.where(mask, a, b),
        "gt": lambda: a > 0.5,
        "cumsum": lambda: a.cumsum(),
        "copy": lambda: a.copy(),
    }
    r = {k: times_ms(f, calls, warmups) for k, f in ops.items()}
    r["numpy"] = np.__version__
    print(json.dumps(r))


if __name__ == "__main__":
    main()
