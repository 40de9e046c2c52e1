"""bin/demo spark's numpy side (the Python peer): writes sensor readings into a shared array for the Kotlin program's
Spark job, then checks the job's result array against numpy's own computation of it.

    spark_peer.py ROWS NAME     prints READY <handle>; then on stdin `check <result handle>` prints CHECKED <max diff> <ms>
"""
import sys
import time

import numpy as np

import sharedarrays as sa

SENSORS = 16


def main():
    rows, name = int(sys.argv[1]), sys.argv[2]
    start = time.perf_counter()
    readings = sa.create((rows, 8), "f8", name=name)  # column 0 the sensor, 1..7 its readings
    a = readings.array
    rng = np.random.default_rng(7)
    a[:, 0] = np.arange(rows) % SENSORS
    a[:, 1:] = rng.normal(loc=a[:, :1], scale=1.0, size=(rows, 7))
    print(f"READY {readings.handle} {(time.perf_counter() - start) * 1e3:.1f}", flush=True)
    for line in sys.stdin:
        cmd, *args = line.split()
        if cmd != "check":
            break
        start = time.perf_counter()
        with sa.attach(args[0]) as result:
            got = result.array  # per sensor: sensor, count, mean of readings 1..3, max of reading 7
            want = np.empty_like(got)
            for s in range(SENSORS):
                mine = a[a[:, 0] == s]
                want[s] = (s, len(mine), *mine[:, 1:4].mean(axis=0), mine[:, 7].max())
            diff = float(np.abs(got - want).max())
        print(f"CHECKED {diff:.3e} {(time.perf_counter() - start) * 1e3:.1f}", flush=True)
    readings.destroy()


if __name__ == "__main__":
    main()
