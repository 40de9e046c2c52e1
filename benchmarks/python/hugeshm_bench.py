"""numpy's side of HugeShmBenchmark: sum, a += b and a column sum on the 4 KiB-page files (a4, b4) and the
huge-page files (ah, bh), alternating call by call as the JVM side does, then on heap copies.
Prints "numpy_small.op ms", "numpy_huge.op ms" and "numpy_heap.op ms" lines (medians)."""
import sys
import time

import numpy as np

ROW = 512  # f64 per row: a column steps 4 KiB, one small page per element


def timed(f):
    t0 = time.perf_counter_ns()
    f()
    return (time.perf_counter_ns() - t0) / 1e6


def main():
    runs = int(sys.argv[1])
    a4, b4, ah, bh = (np.load(p, mmap_mode='r+') for p in sys.argv[2:6])
    sides = {"numpy_small": (a4, b4), "numpy_huge": (ah, bh)}
    t = {}
    for i in range(runs + 1):
        order = ["numpy_small", "numpy_huge"] if i % 2 == 0 else ["numpy_huge", "numpy_small"]
        for side in order:
            a, b = sides[side]
            s = timed(lambda: a.sum())
            d = timed(lambda: np.add(a, b, out=a))
            c = timed(lambda: a.reshape(-1, ROW)[:, 0].sum())
            if i > 0:
                t.setdefault(side + ".sum", []).append(s)
                t.setdefault(side + ".iadd", []).append(d)
                t.setdefault(side + ".column", []).append(c)
    ha, hb = np.array(a4), np.array(b4)
    for i in range(runs + 1):
        s = timed(lambda: ha.sum())
        d = timed(lambda: np.add(ha, hb, out=ha))
        c = timed(lambda: ha.reshape(-1, ROW)[:, 0].sum())
        if i > 0:
            t.setdefault("numpy_heap.sum", []).append(s)
            t.setdefault("numpy_heap.iadd", []).append(d)
            t.setdefault("numpy_heap.column", []).append(c)
    for k, v in t.items():
        v.sort()
        print("%s %.3f" % (k, v[len(v) // 2]))


if __name__ == "__main__":
    main()
