#!/usr/bin/env python3
"""Runs the README's script command end to end, as a user would, and checks what it printed:

    bin/script samples/scripts/column_stats.main.kts

must exit 0 without a WARNING line, print numpy's column statistics and the script's own for the
same shared memory, the two must agree, and the array must be gone from the shm directory
afterwards. bin/test runs this after the build; exit 1 with the reason when something is off.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMMAND = ["bin/script", "samples/scripts/column_stats.main.kts"]
STATS = ["mean", "std", "min", "max", "argmax"]


def fail(why, output):
    print(f"script check: FAILED: {why}\n--- output of {' '.join(COMMAND)} ---\n{output}", file=sys.stderr)
    sys.exit(1)


def rows(output, who):
    """{statistic: [values]} of the lines '<who> <statistic> v1 v2 ...'."""
    out = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0] == who and parts[1] in STATS:
            out[parts[1]] = [float(v) for v in parts[2:]]
    return out


def main():
    p = subprocess.run(COMMAND, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    output = p.stdout
    if p.returncode != 0:
        fail(f"exit status {p.returncode}", output)
    if "WARNING" in output:
        fail("a WARNING line", output)
    numpy, kotlin = rows(output, "numpy"), rows(output, "kotlin")
    for s in STATS:
        if s not in numpy or s not in kotlin:
            fail(f"no '{s}' line from numpy and from the script", output)
        a, b = numpy[s], kotlin[s]
        if len(a) != 4 or len(a) != len(b) or any(abs(x - y) > 2e-6 * max(1.0, abs(x)) for x, y in zip(a, b)):
            fail(f"{s}: numpy {a}, script {b}", output)
    m = re.search(r"reads shm://([^?\s]+)", output)
    if m:
        shm_dir = os.environ.get("SHARED_ARRAYS_DIR", "/dev/shm")
        if os.path.exists(os.path.join(shm_dir, m.group(1))):
            fail(f"{shm_dir}/{m.group(1)} is still there", output)
    elif "reads " not in output:
        fail("no 'reads <handle>' line", output)
    print(f"script check: OK, {' '.join(COMMAND)} agrees with numpy on {', '.join(STATS)} of 4 columns "
          "and left nothing in the shm directory")


if __name__ == "__main__":
    main()
