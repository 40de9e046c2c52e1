"""bin/notebook --execute IN OUT: runs a notebook headless with nbclient in the notebook's own directory and writes it,
outputs included, to OUT, also when a cell fails (then exit status 1, and the failing cell's error on stderr)."""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(argv):
    src, dst = Path(argv[1]), Path(argv[2])
    nb = nbformat.read(src, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name="sharedarrays-java",
                            resources={"metadata": {"path": str(src.resolve().parent)}})
    status = 0
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"bin/notebook: a cell of {src} failed:\n{e}", file=sys.stderr)
        status = 1
    nbformat.write(nb, dst)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
