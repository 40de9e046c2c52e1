"""numpy's side of TemporariesBenchmark, driven op by op so that each op's numpy calls run right
next to the JVM's: reads an op name per line on stdin, calls it WARMUPS + CALLS times in a row,
its result held until the next call replaces it (c = a + b in a loop), on the same shared
segments (numpy.load(mmap_mode='r+')), and prints the ms of the timed calls as one line. The
first line printed is numpy's version."""
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
    print(np.__version__, flush=True)
    for line in sys.stdin:
        op = line.strip()
        if op:
            print(" ".join("%.3f" % t for t in times_ms(ops[op], calls, warmups)), flush=True)


if __name__ == "__main__":
    main()
