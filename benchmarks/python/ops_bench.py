"""numpy's side of OpsBenchmark, driven row by row so that numpy's calls alternate with the JVM's:
the same operations on the same shared segments (numpy.load(mmap_mode='r+')) and, for keys that
start with "heap.", on heap copies made at the first such request. Prints numpy's version, then
answers each line "KEY COUNT" on stdin with the ms of COUNT calls of KEY in a row."""
import sys
import time

import numpy as np


def serve(tables):
    """Answers "KEY COUNT" lines; tables maps a prefix ("" or "heap.") to a function building that
    table of ops (a dict of name -> no-argument callable), called once on first use."""
    built = {}
    print(np.__version__, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        key, count = line.split()
        prefix = "heap." if key.startswith("heap.") else ""
        if prefix not in built:
            built[prefix] = tables[prefix]()
        f = built[prefix][key[len(prefix):]]
        samples = []
        for _ in range(int(count)):
            t0 = time.perf_counter_ns()
            f()
            samples.append((time.perf_counter_ns() - t0) / 1e6)
        print(" ".join("%.4f" % t for t in samples), flush=True)


def ops(a, b, ia, ib, m, c):
    v = m[:, ::2]

    def iadd():
        np.add(a, b, out=a)

    def imul():
        np.multiply(a, 2.5, out=a)
        np.multiply(a, 0.4, out=a)  # keeps the values bounded; both sides time the pair and halve it

    def iaddi():
        np.add(ia, ib, out=ia)

    def vadd():
        np.add(v, 1.0, out=v)

    return {
        "f64_iadd": iadd,
        "f64_imul": imul,
        "f64_sum": lambda: a.sum(),
        "f64_min": lambda: a.min(),
        "f64_max": lambda: a.max(),
        "i32_iadd": iaddi,
        "i32_sum": lambda: ia.sum(),
        "strided_sum": lambda: v.sum(),
        "strided_iadd": vadd,
        "copy": lambda: np.copyto(c, a),
    }


def main():
    shared = [np.load(p, mmap_mode='r+') for p in sys.argv[1:7]]
    serve({"": lambda: ops(*shared), "heap.": lambda: ops(*(np.array(x) for x in shared))})


if __name__ == "__main__":
    main()
