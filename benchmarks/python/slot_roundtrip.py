"""Round trips of one N MiB array between Python processes, and the Python end of the JVM's round trip.

Run by `bin/bench python` (benchmarks/.../PythonBenchmark.java), which prints these figures in one table:
  python slot_roundtrip.py echo <queue in> <queue out>
      the JVM's peer: receive a pool slot, read element 0, send the same slot back; until the queue ends
  python slot_roundtrip.py bench --cases sa,torch,ray --sizes-mb 1,10,100,1000 --iterations N --max-seconds S
      this process sends, a child process (or Ray actor) receives, reads element 0 and sends it back:
        sa     a sharedarrays pool slot (2 slots) through sa.Queue q1, back on q2 (the slot moves, no copy)
        torch  a share_memory_() tensor through torch.multiprocessing queues (its shared-memory handle travels)
        ray    an ObjectRef (ray.put once per size) passed to an actor, which reads the array (zero copy from
               the object store) and returns the ref; we read element 0 of it again
Each size N is an f64 array of shape (N, 128, 128, 8), i.e. N MiB. Prints one JSON object per (case, size)
on stdout, or {"case": ..., "skipped": reason} for a case that cannot be imported; notes go to stderr.
"""
import argparse
import json
import math
import sys
import time

import numpy as np

GET_TIMEOUT_S = 600


def nearest_rank(sorted_samples, p):
    return sorted_samples[max(0, math.ceil(p / 100 * len(sorted_samples)) - 1)]


def shape(mb):
    return (mb, 128, 128, 8)


def echo(q_in_handle, q_out_handle):
    import sharedarrays as sa
    with sa.Queue.attach(q_in_handle) as q_in, sa.Queue.attach(q_out_handle) as q_out:
        for m in q_in:
            float(m.array.flat[0])  # touch the data so receiving cannot be a no-op
            q_out.send(m, timeout=GET_TIMEOUT_S)


# ---------------------------------------------------------------- cases: (setup, round trip, teardown) per size

class SaCase:
    name = "sa"

    def __init__(self):
        import subprocess
        import sharedarrays as sa
        self.sa = sa
        self.q1, self.q2 = sa.Queue.create(2), sa.Queue.create(2)
        self.child = subprocess.Popen([sys.executable, __file__, "echo", self.q1.handle, self.q2.handle])
        self.versions = {"sharedarrays": sa.__version__}

    def start(self, mb):
        self.pool = self.sa.Pool.create("f8", 2, shape(mb))
        self.k = 0

    def trip(self):
        s = self.pool.acquire(timeout=GET_TIMEOUT_S)
        self.k += 1
        s.array.flat[0] = self.k
        t0 = time.perf_counter_ns()
        self.q1.send(s, timeout=GET_TIMEOUT_S)
        r = self.q2.receive(timeout=GET_TIMEOUT_S)
        t1 = time.perf_counter_ns()
        if r.array.flat[0] != self.k:
            raise RuntimeError(f"trip {self.k} came back holding {r.array.flat[0]}")
        r.close()
        return t1 - t0

    def stop(self):
        self.pool.close()

    def close(self):
        self.q1.end()
        self.child.wait(timeout=60)
        self.q1.close()
        self.q2.close()


def _torch_worker(q_in, q_out):
    while (t := q_in.get()) is not None:
        float(t[0, 0, 0, 0])
        q_out.put(t)
        del t


class TorchCase:
    name = "torch"

    def __init__(self):
        import torch
        import torch.multiprocessing as mp
        self.torch = torch
        self.q_in, self.q_out = mp.Queue(), mp.Queue()
        self.proc = mp.Process(target=_torch_worker, args=(self.q_in, self.q_out), daemon=True)
        self.proc.start()
        self.versions = {"torch": torch.__version__}

    def start(self, mb):
        self.t = self.torch.zeros(shape(mb), dtype=self.torch.float64).share_memory_()
        self.k = 0

    def trip(self):
        self.k += 1
        self.t[0, 0, 0, 0] = self.k
        t0 = time.perf_counter_ns()
        self.q_in.put(self.t)
        back = self.q_out.get(timeout=GET_TIMEOUT_S)
        t1 = time.perf_counter_ns()
        if float(back[0, 0, 0, 0]) != self.k:
            raise RuntimeError(f"trip {self.k} came back holding {float(back[0, 0, 0, 0])}")
        del back
        return t1 - t0

    def stop(self):
        del self.t

    def close(self):
        self.q_in.put(None)
        self.proc.join(timeout=30)
        if self.proc.is_alive():
            self.proc.terminate()


class RayCase:
    name = "ray"

    def __init__(self):
        import ray
        self.ray = ray
        # the object store must hold the largest array; Ray's default is 30% of memory
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)

        @ray.remote
        class Echo:
            def echo(self, refs):
                a = ray.get(refs[0])  # zero copy: a read-only view of the object store
                float(a.flat[0])
                return refs

        self.actor = Echo.remote()
        ray.get(self.actor.echo.remote([ray.put(np.zeros(1))]))  # the actor is up
        self.versions = {"ray": ray.__version__}

    def start(self, mb):
        self.ref = None
        self.k = 0
        a = np.zeros(shape(mb))
        self.refs = {}
        self.a = a

    def trip(self):
        ray = self.ray
        self.k += 1
        # each trip a new object (the value changes); the put is outside the timed part, as our fill is
        self.a.flat[0] = self.k
        ref = ray.put(self.a)
        t0 = time.perf_counter_ns()
        back = ray.get(self.actor.echo.remote([ref]))[0]
        v = float(ray.get(back).flat[0])
        t1 = time.perf_counter_ns()
        if v != self.k:
            raise RuntimeError(f"trip {self.k} came back holding {v}")
        del ref, back
        return t1 - t0

    def stop(self):
        del self.a

    def close(self):
        self.ray.shutdown()


CASES = {"sa": SaCase, "torch": TorchCase, "ray": RayCase}


def bench(cases, sizes, iterations, max_seconds):
    for name in cases:
        try:
            case = CASES[name]()
        except ImportError as e:
            print(json.dumps({"case": name, "skipped": f"cannot import: {e}"}), flush=True)
            continue
        except Exception as e:  # noqa: BLE001: a peer that cannot start is skipped with its reason
            print(json.dumps({"case": name, "skipped": f"{type(e).__name__}: {e}"}), flush=True)
            continue
        try:
            for mb in sizes:
                case.start(mb)
                try:
                    deadline = time.monotonic() + 1.0
                    w = 0
                    while w < 5 or (w < 2000 and time.monotonic() < deadline):  # warm-up: imports, page faults
                        case.trip()
                        w += 1
                    samples, deadline = [], time.monotonic() + max_seconds
                    while len(samples) < iterations and (len(samples) < 20 or time.monotonic() < deadline):
                        samples.append(case.trip() / 1000)
                finally:
                    case.stop()
                samples.sort()
                print(json.dumps({"case": name, "mb": mb, "n": len(samples), "p50_us": nearest_rank(samples, 50),
                                  "p99_us": nearest_rank(samples, 99), "python": sys.version.split()[0],
                                  "numpy": np.__version__, **case.versions}), flush=True)
        finally:
            case.close()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "echo":
        echo(sys.argv[2], sys.argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["bench"])
    ap.add_argument("--cases", default="sa,torch,ray")
    ap.add_argument("--sizes-mb", default="1,10,100,1000")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--max-seconds", type=float, default=10)
    a = ap.parse_args()
    bench(a.cases.split(","), [int(s) for s in a.sizes_mb.split(",")], a.iterations, a.max_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
