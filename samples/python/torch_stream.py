"""`bin/demo mixed`'s comparison: the same frame stream done in Python alone, the torch.multiprocessing way.

    python torch_stream.py [--frames 400] [--size 1024] [--pickle]

This process is the producer and collector; 2 consumer processes compute each frame's mean, min and max,
normalise it in place and send the statistics back. Frames are size x size f64, frame f = pattern + f
(the pattern of samples/.../Mixed.kt), so the mean check equals the JVM's.
  * torch (when `import torch` works and --pickle is not given): 8 share_memory_() tensors are reused as a
    pool; each frame is put on a torch.multiprocessing queue (only the tensor's shared-memory handle
    travels, as torch users do), and comes back with its statistics on a second one;
  * otherwise multiprocessing queues pickling numpy arrays (a new array per frame; the statistics come back).
Prints one JSON object on stdout (kind, frames timed, seconds, mean_check, versions); notes on stderr.
The clock starts at the first result (process start-up excluded), as in Mixed.kt.
"""
import argparse
import json
import multiprocessing
import sys
import time

import numpy as np

GET_TIMEOUT_S = 120
IN_FLIGHT = 8  # the JVM's pool has 8 slots


def pattern(size: int) -> np.ndarray:
    r = np.arange(size, dtype=np.float64)[:, None]
    c = np.arange(size, dtype=np.float64)[None, :]
    return np.sin(0.01 * r) * np.sin(0.02 * c) * 100.0


def torch_consumer(q_in, q_out):
    import torch
    torch.set_num_threads(1)  # 2 cores, 3 processes: as the numpy consumers, one thread each
    while (item := q_in.get()) is not None:
        fid, t = item
        mean, lo, hi = t.mean().item(), t.min().item(), t.max().item()
        t.sub_(mean).div_(hi - lo)
        q_out.put((fid, t, mean, lo, hi))
        del item, t


def pickle_consumer(q_in, q_out):
    while (item := q_in.get()) is not None:
        fid, a = item
        mean, lo, hi = float(a.mean()), float(a.min()), float(a.max())
        a -= mean
        a /= hi - lo
        q_out.put((fid, mean, lo, hi))
        del item, a


def run(frames: int, size: int, use_torch: bool) -> dict:
    base = pattern(size)
    if use_torch:
        import torch
        import torch.multiprocessing as mp
        torch.set_num_threads(1)
        base_t = torch.from_numpy(base)
        free = [torch.empty(size, size, dtype=torch.float64).share_memory_() for _ in range(IN_FLIGHT)]
        target = torch_consumer
    else:
        mp = multiprocessing
        target = pickle_consumer
    q_in, q_out = mp.Queue(IN_FLIGHT), mp.Queue()
    procs = [mp.Process(target=target, args=(q_in, q_out), daemon=True) for _ in range(2)]
    for p in procs:
        p.start()
    seen = [False] * frames
    state = {"sum": 0.0, "t0": 0, "got": 0}

    def collect():
        item = q_out.get(timeout=GET_TIMEOUT_S)
        fid, mean = item[0], item[-3]
        if state["got"] == 0:
            state["t0"] = time.perf_counter_ns()
        if seen[fid]:
            raise RuntimeError(f"frame {fid} came back twice")
        seen[fid] = True
        state["sum"] += mean
        state["got"] += 1
        if use_torch:
            free.append(item[1])  # the tensor is free for the next frame

    try:
        in_flight = 0
        for f in range(frames):
            if in_flight == IN_FLIGHT:
                collect()
                in_flight -= 1
            if use_torch:
                t = free.pop()
                t.copy_(base_t)
                t.add_(f)
                q_in.put((f, t))
            else:
                q_in.put((f, base + f))
            in_flight += 1
        while state["got"] < frames:
            collect()
        seconds = (time.perf_counter_ns() - state["t0"]) / 1e9
        for _ in procs:
            q_in.put(None)
        for p in procs:
            p.join(timeout=30)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
    if not all(seen):
        raise RuntimeError("frames missing")
    versions = {"python": sys.version.split()[0], "numpy": np.__version__}
    if use_torch:
        versions["torch"] = torch.__version__
    return {"kind": "torch" if use_torch else "pickle", "frames": frames - 1, "seconds": seconds,
            "mean_check": state["sum"] / frames, **versions}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--pickle", action="store_true", help="multiprocessing queues pickling numpy arrays, even if torch imports")
    a = ap.parse_args()
    use_torch = not a.pickle
    if use_torch:
        try:
            import torch  # noqa: F401
        except ImportError as e:
            print(f"torch_stream: torch skipped ({e}); multiprocessing queues pickling numpy arrays instead", file=sys.stderr)
            use_torch = False
    print(json.dumps(run(a.frames, a.size, use_torch)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
