"""Python's side of AttachBenchmark: the same 1 GiB f64 attach with multiprocessing.shared_memory
+ numpy, and numpy.load(mmap_mode='r+') of a shared-arrays segment. Prints one JSON object."""
import json
import sys
import time
from multiprocessing import shared_memory

import numpy as np


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * p / 100))]


def main():
    nbytes = int(sys.argv[1])
    iterations = int(sys.argv[2])
    our_path = sys.argv[3]
    n = nbytes // 8
    out = {}

    t0 = time.perf_counter_ns()
    owner = shared_memory.SharedMemory(create=True, size=nbytes)
    out["create_ms"] = (time.perf_counter_ns() - t0) / 1e6
    try:
        arr = np.ndarray((n,), dtype='<f8', buffer=owner.buf)
        arr[0] = 1.5
        del arr
        samples = []
        for i in range(iterations + 100):
            t0 = time.perf_counter_ns()
            shm = shared_memory.SharedMemory(name=owner.name)
            a = np.ndarray((n,), dtype='<f8', buffer=shm.buf)
            x = a[0]
            t1 = time.perf_counter_ns()
            assert x == 1.5
            del a
            shm.close()
            if i >= 100:
                samples.append((t1 - t0) / 1000)
        out["attach_p50_us"] = pct(samples, 50)
        out["attach_p99_us"] = pct(samples, 99)
    finally:
        owner.close()
        owner.unlink()

    samples = []
    for i in range(iterations + 100):
        t0 = time.perf_counter_ns()
        a = np.load(our_path, mmap_mode='r+')
        x = a.flat[0]
        t1 = time.perf_counter_ns()
        del a
        if i >= 100:
            samples.append((t1 - t0) / 1000)
    out["npload_p50_us"] = pct(samples, 50)
    out["npload_p99_us"] = pct(samples, 99)
    out["numpy"] = np.__version__
    out["python"] = sys.version.split()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
