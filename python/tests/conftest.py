import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

PEER = os.path.join(os.path.dirname(__file__), "peers", "peer.py")

# as the JVM's tests do for their children: the backend is the tests' to choose, and the default is shm
os.environ.pop("SHARED_ARRAYS_BACKEND", None)
os.environ["SHARED_ARRAYS_SHM_MIN_FREE"] = "0"
# no background sweeps at create (they would race tests that place files on purpose); test_lifecycle turns them on
os.environ["SHARED_ARRAYS_AUTO_SWEEP"] = "0"


@pytest.fixture(autouse=True)
def shm_dir(tmp_path, monkeypatch):
    """Each test's shm directory of its own (mode 0700); it must be empty at the end."""
    d = tmp_path / "shm"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("SHARED_ARRAYS_DIR", str(d))
    yield d
    left = sorted(os.listdir(d))
    assert left == [], f"the test left {left} in {d}"


class Peer:
    """A Python peer process running peers/peer.py; its stdout lines are queued for expect()."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, PEER, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def expect(self, prefix: str, timeout: float = 30) -> str:
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"peer {self.pid} printed no {prefix!r} in {timeout} s; output: {self.seen}") from None
            if line is None:
                raise AssertionError(f"peer {self.pid} ended ({self.proc.poll()}) before {prefix!r}; output: {self.seen}")
            self.seen.append(line)
            if line.startswith(prefix):
                return line[len(prefix):].strip()

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def wait(self, timeout: float = 60) -> int:
        return self.proc.wait(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # this peer's own pid
            self.proc.wait(30)
        for s in (self.proc.stdin, self.proc.stdout):
            try:
                s.close()
            except OSError:
                pass

    def __enter__(self) -> "Peer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
