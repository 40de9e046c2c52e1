"""numpy's side of OpsBenchmark: the same operations on the same shared segments (mapped with
numpy.load(mmap_mode='r+')) and on heap copies. Prints one JSON object of median milliseconds."""
import json
import sys
import time

import numpy as np


def median_ms(f, runs):
    f()  # warm-up
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        f()
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    samples.sort()
    return samples[len(samples) // 2]


def measure(a, b, ia, ib, m, c, runs):
    v = m[:, ::2]

    def iadd():
        np.add(a, b, out=a)

    def imul():
        np.multiply(a, 2.5, out=a)
        np.multiply(a, 0.4, out=a)  # keep the values bounded; timed as two, halved below

    def iaddi():
        np.add(ia, ib, out=ia)

    def vadd():
        np.add(v, 1.0, out=v)

    r = {
        "f64_iadd": median_ms(iadd, runs),
        "f64_imul": median_ms(imul, runs) / 2,
        "f64_sum": median_ms(lambda: a.sum(), runs),
        "f64_min": median_ms(lambda: a.min(), runs),
        "f64_max": median_ms(lambda: a.max(), runs),
        "i32_iadd": median_ms(iaddi, runs),
        "i32_sum": median_ms(lambda: ia.sum(), runs),
        "strided_sum": median_ms(lambda: v.sum(), runs),
        "strided_iadd": median_ms(vadd, runs),
        "copy": median_ms(lambda: np.copyto(c, a), runs),
    }
    return r


def main():
    runs = int(sys.argv[1])
    paths = sys.argv[2:8]
    a, b, ia, ib, m, c = (np.load(p, mmap_mode='r+') for p in paths)
    shared = measure(a, b, ia, ib, m, c, runs)
    heap = measure(*(np.array(x) for x in (a, b, ia, ib, m, c)), runs)
    print(json.dumps({"shared": shared, "heap": heap, "numpy": np.__version__}))


if __name__ == "__main__":
    main()
