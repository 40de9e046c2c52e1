"""numpy's side of HugeShmBenchmark: sum and a += b on the same two shared files
(numpy.load(mmap_mode='r+')), then on heap copies. Prints "op.numpy ms" and "op.numpy_heap ms" lines."""
import sys

import numpy as np

from ops_bench import median_ms


def measure(a, b, runs, suffix):
    print("sum.%s %.3f" % (suffix, median_ms(lambda: a.sum(), runs)))
    print("iadd.%s %.3f" % (suffix, median_ms(lambda: np.add(a, b, out=a), runs)))


def main():
    runs = int(sys.argv[1])
    a, b = (np.load(p, mmap_mode='r+') for p in sys.argv[2:4])
    measure(a, b, runs, "numpy")
    ha, hb = np.array(a), np.array(b)
    measure(ha, hb, runs, "numpy_heap")


if __name__ == "__main__":
    main()
