"""Round trip parent -> worker process -> parent through two multiprocessing queues.

This is what torch.multiprocessing users pay for handing an array to a worker and back:
  * "numpy pickled": a float64 numpy array through multiprocessing.Queue (pickled both ways);
  * "torch shared tensor": a share_memory_() tensor through torch.multiprocessing queues
    (only the shared-memory handle travels), measured only when `import torch` succeeds.
Each size N MB is an array of shape (N, 128, 128, 8) float64, i.e. N MiB. One worker per case
is started with the platform's default start method and reused for every size.

Run by the Java benchmark `bin/bench queue`, which prints these figures beside ours, or by hand:
  python3 queue_roundtrip.py --sizes-mb 1,10,100,500,1000 --iterations N [--max-seconds S]
Prints one JSON object per (case, size) on stdout; diagnostics go to stderr.
"""
import argparse
import json
import math
import multiprocessing
import sys
import time

import numpy as np

try:
    import torch
    import torch.multiprocessing as torch_mp
except ImportError:
    torch = torch_mp = None

GET_TIMEOUT_S = 600  # a dead worker must fail the run, not hang the Java parent forever


def worker(q_in, q_out):
    while (a := q_in.get()) is not None:
        float(a[0, 0, 0, 0])  # touch the data so receiving it cannot be a no-op
        q_out.put(a)
        del a  # drop our copy before waiting, large sizes would otherwise double the footprint


def nearest_rank(sorted_samples, p):
    return sorted_samples[max(0, math.ceil(p / 100 * len(sorted_samples)) - 1)]


class Case:
    def __init__(self, name, mp):
        self.name, self.q_in, self.q_out = name, mp.Queue(), mp.Queue()
        self.proc = mp.Process(target=worker, args=(self.q_in, self.q_out), daemon=True)
        self.proc.start()

    def round_trip(self, payload):
        t0 = time.perf_counter_ns()
        self.q_in.put(payload)
        back = self.q_out.get(timeout=GET_TIMEOUT_S)
        t1 = time.perf_counter_ns()
        del back  # frees the unpickled copy (or the extra mapping) before the next trip
        return (t1 - t0) / 1000

    def close(self):
        try:
            self.q_in.put(None)
            self.proc.join(timeout=30)
        finally:
            if self.proc.is_alive():
                self.proc.terminate()
                self.proc.join()
                self.q_in.cancel_join_thread()  # unread data in the pipe must not block our exit


def measure(case, payload, iterations, max_seconds):
    for _ in range(2):
        case.round_trip(payload)  # warm-up: first trips pay for imports, page faults, pipe setup
    samples, deadline = [], time.monotonic() + max_seconds
    while len(samples) < iterations and (len(samples) < 3 or time.monotonic() < deadline):
        samples.append(case.round_trip(payload))
    return sorted(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mb", required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--max-seconds", type=float, default=20.0)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes_mb.split(",") if s.strip()]
    versions = {"python": sys.version.split()[0], "numpy": np.__version__,
                "torch": torch.__version__ if torch else None}
    if torch is None:
        print("torch not importable: skipping 'torch shared tensor'", file=sys.stderr)

    cases = []
    try:
        cases.append(Case("numpy pickled", multiprocessing))
        if torch:
            cases.append(Case("torch shared tensor", torch_mp))
        for mb in sizes:
            arr = np.arange(mb * 128 * 128 * 8, dtype=np.float64)
            np.mod(arr, 1000.0, out=arr)  # in place: no second full-size temporary
            arr = arr.reshape(mb, 128, 128, 8)
            for case in cases:
                payload = arr if case.name == "numpy pickled" else torch.from_numpy(arr).clone().share_memory_()
                t = time.monotonic()
                s = measure(case, payload, args.iterations, args.max_seconds)
                del payload
                print(f"{case.name} {mb} MB: {len(s)} trips in {time.monotonic() - t:.1f} s", file=sys.stderr)
                print(json.dumps({"case": case.name, "mb": mb, "n": len(s), "p50_us": nearest_rank(s, 50),
                                  "p99_us": nearest_rank(s, 99), **versions}), flush=True)
            del arr
    finally:
        for case in cases:
            case.close()


if __name__ == "__main__":
    main()
