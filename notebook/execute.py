"""bin/notebook --execute IN OUT: runs a notebook headless with nbclient in the notebook's own directory on the kernel
its metadata names (the Kotlin kernel if it names none) and writes it, outputs included, to OUT, also when a cell fails:
then exit status 1, and on stderr the failing cell's number and its error as the notebook shows it (type, message,
the stack down to the cell's line)."""
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def main(argv):
    src, dst = Path(argv[1]), Path(argv[2])
    nb = nbformat.read(src, as_version=4)
    kernel = nb.metadata.get("kernelspec", {}).get("name") or "sharedarrays-kotlin"
    client = NotebookClient(nb, timeout=180, kernel_name=kernel, resources={"metadata": {"path": str(src.resolve().parent)}})
    status = 0
    try:
        client.execute()
    except CellExecutionError:
        status = 1
        for n, cell in enumerate(nb.cells, 1):
            for o in cell.get("outputs", []):
                if o.output_type == "error":
                    lines = [ANSI.sub("", line) for line in o.traceback] or [f"{o.ename}: {o.evalue}"]
                    print(f"bin/notebook: cell {n} of {src} failed:", *("    " + line for line in lines), sep="\n", file=sys.stderr)
    nbformat.write(nb, dst)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
