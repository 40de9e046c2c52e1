"""Run by bin/test (through `bin/notebook --check`): executes the sample notebooks headless with nbclient on the
shared-arrays kernels, Kotlin and Java, and checks their outputs (values, pictures); for each kernel a failing cell,
cells queued behind it, interrupted cells, completion, a restart, and a kernel whose Jupyter process is killed; and
checks after each kernel's end that nothing is left in the shm directory.
The kernels and their Python peers use a private directory under /dev/shm (SHARED_ARRAYS_DIR), so other processes'
segments cannot blur the check. Writes the numpy notebook's heat map to docs/notebook-heatmap.png, the picture the
README shows."""
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import numpy as np
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PNG = b"\x89PNG\r\n\x1a\n"

# What each kernel's checks type, in its language; the checks and what they expect are the same.
JAVA = {
    "kernel": "sharedarrays-java", "display": "Java (shared-arrays)", "language": "java",
    "numpy": {"a": "var a = NDArrays.arange", "row": "var row = a.select", "centered": "var centered",
              "z": "var z = ArrayMath.sin", "mask": "var mask = z.gt(0.2)", "shared": "var shared = z.share()"},
    "create": 'var a = SharedArrays.create(F64.TYPE, 1000); a.fill(1.0); a.handle()',
    "await": "a.awaitChange(a.changeCount(), Duration.ofMinutes(5))",
    "sleep": "Thread.sleep(60_000); 1",
    "loop": "while (true) { a.fill(2.0); }",
    "cube": "NDArrays.zeros(F64.TYPE, 2, 3, 4)",
    "display_cell": "display(a); 1",
    "compile_error": "int q = 1 +\n  undefinedName;",
    "two": 'var b = SharedArrays.create(I32.TYPE, 10, 10); var c = ArrayQueue.create(4); b.handle()',
    "fails": 'Integer.parseInt("x")',
    "queued": 'var q = SharedArrays.create(F64.TYPE, 8); q.handle()',
    "string": ('"after"', 'after'),
    "failing": ['var n = SharedArrays.create(F64.TYPE, 8); n.handle() // a comment', '// only a comment\n',
                'Integer.parseInt("not a number")', '"not reached"'],
    "foreign_frames": ("dev.sharedarrays.notebook", "jdk.jshell"),
    "orphan": 'var a = SharedArrays.create(F64.TYPE, 100); a.handle()',
}
KOTLIN = {
    "kernel": "sharedarrays-kotlin", "display": "Kotlin (shared-arrays)", "language": "kotlin",
    "numpy": {"a": "val a = arange(0.0, 12.0)", "row": "val row = a[1, all]", "centered": "val centered",
              "z": "val z = sin(xs * ys)", "mask": "val mask = z gt 0.2", "shared": "val shared = z.share()"},
    "create": 'val a = SharedArrays.create(F64.TYPE, 1000L); a.fill(1.0); a.handle',
    "await": "a.awaitChange(a.changeCount(), kotlin.time.Duration.parse(\"5m\"))",
    "sleep": "Thread.sleep(60_000); 1",
    "loop": "while (true) { a.fill(2.0) }",
    "cube": "zeros<F64>(2, 3, 4)",
    "display_cell": "display(a); 1",
    "compile_error": "val q = 1 +\n  undefinedName",
    "two": 'val b = SharedArrays.create(I32.TYPE, 10L, 10L); val c = ArrayQueue.create(4); b.handle',
    "fails": '"x".toInt()',
    "queued": 'val q = SharedArrays.create(F64.TYPE, 8L); q.handle',
    "string": ('"after"', 'after'),
    "failing": ['val n = SharedArrays.create(F64.TYPE, 8L); n.handle // a comment', '// only a comment\n',
                '"not a number".toInt()', '"not reached"'],
    "foreign_frames": ("dev.sharedarrays.notebook", "org.jetbrains.kotlin"),
    "orphan": 'val a = SharedArrays.create(F64.TYPE, 100L); a.handle',
}


def fail(msg):
    raise SystemExit(f"samples/notebooks/check.py: {msg}")


def left(shm):
    return sorted(os.listdir(shm))


def execute(name):
    nb = nbformat.read(HERE / name, as_version=4)
    start = time.monotonic()
    # the notebook's own kernel spec names its kernel
    NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(HERE)}}).execute()
    return nb, time.monotonic() - start


def outputs(cell):
    """(all text of the cell's outputs, its PNGs decoded)."""
    text, pngs = [], []
    for o in cell.get("outputs", []):
        if o.output_type == "error":
            fail(f"cell failed: {o.ename}: {o.evalue}\n{cell.source}")
        if o.output_type == "stream":
            text.append(o.text)
        data = o.get("data", {})
        text.append(data.get("text/plain", ""))
        if "image/png" in data:
            pngs.append(base64.b64decode(data["image/png"]))
    return "".join(text), pngs


def cell_with(nb, snippet):
    for c in nb.cells:
        if c.cell_type == "code" and snippet in c.source:
            return c
    fail(f"no cell with {snippet!r}")


def expect(text, *wanted):
    for w in wanted:
        if w not in text:
            fail(f"expected {w!r} in the output:\n{text}")


def check_numpy(nb, lang):
    cells = lang["numpy"]
    first = cell_with(nb, cells["a"])
    text, pngs = outputs(first)
    expect(text, "[[ 0.  1.  2.  3.]", " [ 8.  9. 10. 11.]]")
    if len(pngs) != 1 or not pngs[0].startswith(PNG):
        fail("the first array has no image/png output")
    # JupyterLab renders the richest type of a bundle: the HTML holds the text and the picture both
    html = "".join(o.get("data", {}).get("text/html", "") for o in first.outputs)
    if not html.startswith("<pre>") or "[[ 0.  1.  2.  3.]" not in html.split("</pre>")[0] \
            or '</pre>\n<img src="data:image/png;base64,' not in html:
        fail(f"the array's text/html should hold its text and its picture: {html[:200]!r}")
    text, _ = outputs(cell_with(nb, cells["row"]))
    expect(text, "[ 4. -1. -1.  7.]", "27.0")
    text, _ = outputs(cell_with(nb, cells["centered"]))
    expect(text, "mean 2.25, max 11.0, argmax 11", "[[-4.  0.  0. -4.]")
    # the heat map: its values against numpy's
    text, pngs = outputs(cell_with(nb, cells["z"]))
    if len(pngs) != 1 or not pngs[0].startswith(PNG):
        fail("the heat map cell has no image/png output")
    heatmap = pngs[0]
    x = np.linspace(-3.0, 3.0, 300)
    z = np.sin(np.outer(x, x)) * np.exp((x[None, :] ** 2 + x[:, None] ** 2) * -0.25)
    text, pngs = outputs(cell_with(nb, cells["mask"]))
    count = int(re.search(r"(\d+) elements above 0.2", text).group(1))
    low, high = int((z > 0.2 + 1e-9).sum()), int((z > 0.2 - 1e-9).sum())
    if not low <= count <= high:
        fail(f"{count} elements above 0.2 in the notebook, numpy says {low}..{high}")
    if len(pngs) != 1:
        fail("the mask has no image/png output")
    expect(outputs(cell_with(nb, "z.toPng(file)"))[0], "true")
    expect(outputs(cell_with(nb, cells["shared"]))[0], "shm://")
    return heatmap


def check_watch(nb, lang):
    text, _ = outputs(cell_with(nb, "frame.signalChange()"))
    pattern_sum = 2 * 64 * sum(range(64))
    for i in range(1, 6):
        expect(text, f"frame {i}: sum {float(i * pattern_sum)}, max {float(i * 126)}")
    text, pngs = outputs(nb.cells[[c.source.strip() for c in nb.cells].index("frame")])
    if len(pngs) != 1:
        fail("the watched frame has no image/png output")
    expect(outputs(cell_with(nb, "peer.waitFor()"))[0], "peer exit status 0")


def check_stream(nb, lang):
    text, _ = outputs(cell_with(nb, "queue.receive"))
    for i in range(8):
        mean = (i * 10 * 32 + i * 31 * 32) / 1024
        expect(text, f"frame {i}: first row {float(i * 10)}, mean {mean}")
    expect(text, "8 frames, 4 of 4 slots back in the pool with the last one")
    if len(outputs(nb.cells[[c.source.strip() for c in nb.cells].index("last")])[1]) != 1:
        fail("the last frame has no image/png output")
    expect(outputs(cell_with(nb, "producer.waitFor()"))[0], "producer exit status 0")


def check_pipeline(nb, lang):
    """Four worker JVMs fill rows (r + 1) of a 64 x 96 array, then each writes its rows of out as the mean of all of
    raw plus the row's number: every worker saw the others' writes of the phase before."""
    raw = np.repeat(np.arange(1.0, 65.0)[:, None], 96, axis=1)
    out = raw.mean() + np.repeat(np.arange(64.0)[:, None], 96, axis=1)
    text, pngs = outputs(cell_with(nb, "launchWorkers("))
    expect(text, f"raw: sum {raw.sum()}, out: min {out.min()}, max {out.max()}", f"out sum {out.sum()}",
           "[[32.5 32.5 32.5 ... 32.5 32.5 32.5]")
    if len(pngs) != 1 or not pngs[0].startswith(PNG):
        fail("the pipeline's result has no image/png output")
    expect(outputs(cell_with(nb, "runPhased("))[0], "[0.0, 11.0, 22.0, 33.0]")


class Kernel:
    """A kernel driven cell by cell, for interrupts and restarts."""

    def __init__(self, lang):
        self.displays = []
        self.km = KernelManager(kernel_name=lang["kernel"])
        self.km.start_kernel(cwd=str(HERE))
        self.start_client()

    def start_client(self):
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def run(self, code, interrupt_after=None, timeout=30):
        mid = self.kc.execute(code)
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            self.km.interrupt_kernel()
        result = None
        while True:
            m = self.kc.get_iopub_msg(timeout=timeout)
            if m["parent_header"].get("msg_id") != mid:
                continue
            if m["msg_type"] in ("execute_result", "error"):
                result = m["content"]
            if m["msg_type"] == "display_data":
                self.displays.append(m["content"])
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        while self.kc.get_shell_msg(timeout=timeout)["parent_header"].get("msg_id") != mid:
            pass
        return result

    def complete(self, code):
        mid = self.kc.complete(code)
        while True:
            m = self.kc.get_shell_msg(timeout=60)
            if m["parent_header"].get("msg_id") == mid:
                return m["content"]["matches"]

    def pid(self):
        return self.km.provisioner.process.pid

    def restart(self):
        self.kc.stop_channels()
        self.km.restart_kernel(now=False)
        self.start_client()

    def shutdown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)


def check_interrupt_and_restart(shm, lang):
    k = Kernel(lang)
    try:
        r = k.run(lang["create"])
        if len(left(shm)) != 1:
            fail(f"expected the kernel's one array in {shm}, found {left(shm)}")
        r = k.run(lang["compile_error"])
        if r is None or r.get("ename") != "CompileError" or "line 2, column 3" not in r.get("evalue", ""):
            fail(f"a compile error shows the compiler's message with the cell's line and column, got {r}")
        if not any(m.startswith("sum") for m in k.complete("a.su")):
            fail(f"completing 'a.su' should offer sum, got {k.complete('a.su')}")
        r = k.run(lang["display_cell"])
        if r is None or r["data"]["text/plain"] != "1" or len(k.displays) != 1 \
                or not base64.b64decode(k.displays[0]["data"].get("image/png", "")).startswith(PNG):
            fail(f"display(a) mid-cell shows the array with its picture, the cell its value: {r}, {k.displays}")
        start = time.monotonic()
        r = k.run(lang["await"], interrupt_after=1.0)
        if r is None or "CancellationException" not in r.get("ename", "") + r.get("evalue", ""):
            fail(f"an interrupted awaitChange should end in a CancellationException, got {r}")
        r = k.run(lang["sleep"], interrupt_after=1.0)
        if r is None or "InterruptedException" not in r.get("ename", "") + r.get("evalue", ""):
            fail(f"an interrupted sleep should end in an InterruptedException, got {r}")
        r = k.run(lang["loop"], interrupt_after=1.0)
        if r is None or r.get("ename") is None:
            fail(f"an interrupted loop should end in an error, got {r}")
        took = time.monotonic() - start
        r = k.run(lang["cube"])
        if "image/png" in r["data"] or "[[[0. 0. 0. 0.]" not in r["data"]["text/plain"]:
            fail(f"a 3-D array shows as text only, got {r}")
        r = k.run("a.sum()")
        if r["data"]["text/plain"] != "2000.0":
            fail(f"after the interrupts the kernel should still hold the array, a.sum() gave {r}")
        old = k.pid()
        k.restart()
        if left(shm):
            fail(f"a kernel restart left {left(shm)} in {shm}")
        if k.pid() == old:
            fail("the restart did not start a new kernel process")
        k.run(lang["two"])
        if len(left(shm)) != 2:
            fail(f"expected the new kernel's array and queue in {shm}, found {left(shm)}")
    finally:
        k.shutdown()
    if left(shm):
        fail(f"a kernel shutdown left {left(shm)} in {shm}")
    return took


def check_kotlin_cells(shm):
    """Kotlin only: suspending calls at a cell's top level (a CoroutineBarrier, delay) keep their values for later
    cells; an inline function of one cell is called from a later one; a Unit cell shows nothing."""
    k = Kernel(KOTLIN)
    try:
        r = k.run("val cb = CoroutineBarrier(1)\nval arrived = cb.await()\ndelay(10)\narrived + 41")
        if r is None or r.get("data", {}).get("text/plain") != "41":
            fail(f"suspending calls at a cell's top level: {r}")
        r = k.run("inline fun <T> twice(f: () -> T): List<T> = listOf(f(), f())")
        if r is not None:
            fail(f"a declaration shows nothing, got {r}")
        r = k.run("twice { arrived + 1 }")
        if r is None or r.get("data", {}).get("text/plain") != "[1, 1]":
            fail(f"an inline function of an earlier cell: {r}")
        r = k.run('println("unit")')
        if r is not None:
            fail(f"a Unit cell shows nothing, got {r}")
    finally:
        k.shutdown()
    if left(shm):
        fail(f"the Kotlin kernel left {left(shm)} in {shm}")


def check_abort_queued(shm, lang):
    """A failed cell aborts the cells queued behind it (as ipykernel does: "Run All" stops at the first error); a
    cell sent after the error runs."""
    k = Kernel(lang)
    try:
        ids = [k.kc.execute(code) for code in (lang["fails"], lang["queued"], '"queued"')]
        replies = {}
        while len(replies) < len(ids):
            m = k.kc.get_shell_msg(timeout=60)
            if m["parent_header"].get("msg_id") in ids:
                replies[m["parent_header"]["msg_id"]] = m["content"]["status"]
        statuses = [replies[i] for i in ids]
        if statuses != ["error", "aborted", "aborted"]:
            fail(f"a failed cell and two queued behind it: replies {statuses}, want error, aborted, aborted")
        if left(shm):
            fail(f"an aborted cell ran: {left(shm)} in {shm}")
        code, shown = lang["string"]
        r = k.run(code)
        if r is None or r["data"]["text/plain"] != shown:
            fail(f"a cell sent after the error should run, got {r}")
    finally:
        k.shutdown()


def check_failing_cell(tmp, lang):
    """bin/notebook --execute: exit status 1 when a cell fails, the executed notebook written with the error."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": lang["kernel"], "display_name": lang["display"], "language": lang["language"]}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in lang["failing"]]
    src, dst = tmp / "failing.ipynb", tmp / "failing.out.ipynb"
    nbformat.write(nb, src)
    run = subprocess.run([sys.executable, str(ROOT / "notebook" / "execute.py"), str(src), str(dst)],
                         stderr=subprocess.PIPE, text=True)
    rc, err = run.returncode, run.stderr
    if f"cell 3 of {src} failed:" not in err or "java.lang.NumberFormatException: For input string" not in err \
            or "at cell line 1" not in err or any(f in err for f in lang["foreign_frames"]):
        fail(f"--execute of a failing notebook should print the cell's exception, not the kernel's frames:\n{err}")
    out = nbformat.read(dst, as_version=4)
    errors = [o for o in out.cells[2].outputs if o.output_type == "error"]
    if rc != 1 or not errors or errors[0].ename != "java.lang.NumberFormatException" or out.cells[3].outputs:
        fail(f"a failing cell: exit status {rc} (want 1), outputs {[c.outputs for c in out.cells]}")
    tb = errors[0].traceback
    if not tb[0].startswith("java.lang.NumberFormatException: For input string") or "    at cell line 1" not in tb \
            or any(f in line for f in lang["foreign_frames"] for line in tb):
        fail(f"the error shows its type, message and the stack down to the cell, none of the kernel's frames: {tb}")
    if "shm://" not in out.cells[0].outputs[0].data["text/plain"] or out.cells[1].outputs:
        fail(f"a cell ending in a comment, and one of a comment alone: {out.cells[0].outputs}, {out.cells[1].outputs}")


ORPHAN = """
import os
from jupyter_client.manager import KernelManager
km = KernelManager(kernel_name=os.environ["KERNEL_NAME"])
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=60)
kc.execute_interactive(os.environ["KERNEL_CELL"], timeout=60, output_hook=lambda m: None)
with open(os.environ["KERNEL_PID_FILE"], "w") as f:
    f.write(str(km.provisioner.process.pid))
os.kill(os.getpid(), 9)
"""


def check_orphan(shm, lang):
    """A kernel whose Jupyter process is killed exits by itself, through the shutdown hook."""
    with tempfile.TemporaryDirectory() as tmp:
        pid_file = Path(tmp) / "kernel.pid"
        # no pipes: the kernel inherits them and would keep them open after its parent died
        subprocess.run([sys.executable, "-c", ORPHAN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "KERNEL_PID_FILE": str(pid_file), "KERNEL_NAME": lang["kernel"],
                            "KERNEL_CELL": lang["orphan"]})
        kernel = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(kernel, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(kernel, 9)
        fail(f"the kernel {kernel} still ran 10 s after its Jupyter process was killed")
    if left(shm):
        fail(f"a kernel orphaned by a killed Jupyter process left {left(shm)} in {shm}")


def main():
    start = time.monotonic()
    shm = Path(tempfile.mkdtemp(prefix="sa-notebook-check-", dir="/dev/shm"))
    os.environ["SHARED_ARRAYS_DIR"] = str(shm)
    try:
        notebooks = [("numpy_habits.ipynb", check_numpy, JAVA), ("watch_a_peer.ipynb", check_watch, JAVA),
                     ("stream_through_a_queue.ipynb", check_stream, JAVA),
                     ("kotlin_numpy_habits.ipynb", check_numpy, KOTLIN), ("kotlin_watch_a_peer.ipynb", check_watch, KOTLIN),
                     ("kotlin_stream_through_a_queue.ipynb", check_stream, KOTLIN),
                     ("kotlin_pipeline.ipynb", check_pipeline, KOTLIN)]
        heatmap = None
        for name, check, lang in notebooks:
            nb, took = execute(name)
            if left(shm):
                fail(f"{name}: the kernel's end left {left(shm)} in {shm}")
            picture = check(nb, lang)
            if lang is JAVA and picture:
                heatmap = picture
            print(f"notebook check: {name} ran in {took:.1f} s, outputs as expected, nothing left in the shm directory")
        for lang in (KOTLIN, JAVA):
            name = lang["display"]
            with tempfile.TemporaryDirectory() as tmp:
                check_failing_cell(Path(tmp), lang)
            if left(shm):
                fail(f"a {name} kernel whose cell failed left {left(shm)} in {shm}")
            print(f"notebook check: {name}: a failing cell makes --execute exit with 1 and leaves nothing")
            check_abort_queued(shm, lang)
            print(f"notebook check: {name}: a failed cell aborted the two queued behind it; a cell sent after it ran")
            took = check_interrupt_and_restart(shm, lang)
            print(f"notebook check: {name}: a compile error with its line and column, completion, display; "
                  f"three interrupted cells ended in {took:.1f} s; a restart and a shutdown left nothing")
            check_orphan(shm, lang)
            print(f"notebook check: {name}: a kernel whose Jupyter process was killed exited and left nothing")
        check_kotlin_cells(shm)
        print("notebook check: Kotlin: suspending calls at top level, an inline function across cells, a Unit cell")
        (ROOT / "docs" / "notebook-heatmap.png").write_bytes(heatmap)
        print(f"notebook check: done in {time.monotonic() - start:.1f} s; the heat map is in docs/notebook-heatmap.png")
    finally:
        shutil.rmtree(shm, ignore_errors=True)


if __name__ == "__main__":
    main()
