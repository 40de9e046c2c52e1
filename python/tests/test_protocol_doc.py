"""docs/PROTOCOL.md against sharedarrays._layout.

Every row of a table of docs/PROTOCOL.md that has ``constant`` and ``value`` columns names a
constant as ```Class.NAME``` and gives its value. ``sharedarrays._layout`` has one class per Java
layout class, with the same class and constant names, and must define every such constant with
that value: a word the Python package lacks or places elsewhere is a failure. The Java side is
held to the same rows by library/src/test/kotlin/dev/sharedarrays/ProtocolDocTest.kt.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "PROTOCOL.md"

_CONSTANT = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)`")
_NUMBER = re.compile(r"-?[0-9]+|0[xX][0-9a-fA-F]+")
_SEPARATOR = re.compile(r":?-+:?")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
# names of layout constants that must not exist in _layout without a row in the document
_LAYOUT_NAME = re.compile(r"^(CELL_[A-Z0-9_]+|[A-Z0-9_]+_OFFSET|[A-Z0-9_]+_SIZE)$")
_TWO_64 = 1 << 64


class Row(NamedTuple):
    line: int
    class_name: str
    name: str
    value: str

    @property
    def id(self) -> str:
        return f"{self.class_name}.{self.name}"


def cells(line: str) -> list[str]:
    """The cells of a table line: split on '|' not escaped as '\\|', trimmed, escapes undone."""
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [c.strip().replace("\\|", "|") for c in _UNESCAPED_PIPE.split(inner)]


def tables(text: str) -> list[list[tuple[int, list[str]]]]:
    """The tables of text: lists of (line number, cells), header first, separator line dropped."""
    out: list[list[tuple[int, list[str]]]] = []
    current: list[tuple[int, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("|"):
            c = cells(raw)
            if not all(_SEPARATOR.fullmatch(x) for x in c):
                current.append((number, c))
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def rows(text: str) -> list[Row]:
    """Rows of tables with ``constant`` and ``value`` columns whose constant cell is ```Class.NAME```."""
    out: list[Row] = []
    for table in tables(text):
        header = [h.lower() for h in table[0][1]]
        if "constant" not in header or "value" not in header:
            continue
        ci, vi = header.index("constant"), header.index("value")
        for number, c in table[1:]:
            m = _CONSTANT.fullmatch(c[ci] if ci < len(c) else "")
            if m:
                out.append(Row(number, m.group(1), m.group(2), c[vi] if vi < len(c) else ""))
    return out


def parse(value: str) -> int | None:
    """A value cell as an int (backticks, spaces and '_' ignored), or None if it is no number."""
    v = value.replace("`", "").replace("_", "").strip()
    if not _NUMBER.fullmatch(v):
        return None
    return int(v, 16) if v.lower().startswith("0x") else int(v)


def unsigned(n: int) -> int:
    """64-bit words as the document writes them: a negative value (a Java long) as unsigned."""
    return n + _TWO_64 if n < 0 else n


def mismatch(row: Row, layout: object) -> str | None:
    """What is wrong with one row against module ``layout``; None if it matches."""
    cls = getattr(layout, row.class_name, None)
    if cls is None:
        return f"{row.id} (line {row.line}): sharedarrays._layout has no class {row.class_name}"
    if not hasattr(cls, row.name):
        return f"{row.id} (line {row.line}): sharedarrays._layout.{row.class_name} has no constant {row.name}"
    actual = getattr(cls, row.name)
    documented = parse(row.value)
    if documented is None:
        return f"{row.id}: value {row.value!r} is not a decimal or 0x number"
    if isinstance(actual, bool) or not isinstance(actual, int):
        return f"{row.id}: sharedarrays._layout has {actual!r}, not an int"
    if unsigned(actual) != unsigned(documented):
        return f"{row.id}: the document says {row.value}, sharedarrays._layout has {actual}"
    return None


def _doc_rows() -> list[Row]:
    return rows(DOC.read_text(encoding="utf-8"))


def _load_layout():
    """sharedarrays._layout, installed or from python/ of this repository."""
    try:
        return importlib.import_module("sharedarrays._layout")
    except ModuleNotFoundError as e:
        if e.name != "sharedarrays":
            raise
    sys.path.insert(0, str(REPO / "python"))
    return importlib.import_module("sharedarrays._layout")


@pytest.fixture(scope="module")
def layout():
    try:
        return _load_layout()
    except ImportError as e:  # a missing module is a failure, never a skip
        pytest.fail(f"cannot import sharedarrays._layout, which must define every constant of {DOC}: {e}")


DOC_ROWS = _doc_rows()


def test_the_document_has_constant_rows():
    # a parser that reads nothing would let every other test pass vacuously
    assert len(DOC_ROWS) > 80, f"only {len(DOC_ROWS)} constant rows read from {DOC}"


@pytest.mark.parametrize("row", DOC_ROWS, ids=[f"{r.id}@{r.line}" for r in DOC_ROWS])
def test_layout_constant_matches_the_document(row: Row, layout):
    problem = mismatch(row, layout)
    assert problem is None, problem


def test_layout_has_no_undocumented_words(layout):
    documented = {r.id for r in DOC_ROWS}
    extra = []
    for class_name in sorted({r.class_name for r in DOC_ROWS}):
        cls = getattr(layout, class_name, None)
        if cls is None:
            continue  # reported per row
        for name in dir(cls):
            value = getattr(cls, name)
            if _LAYOUT_NAME.match(name) and isinstance(value, int) and f"{class_name}.{name}" not in documented:
                extra.append(f"{class_name}.{name} = {value}")
    assert not extra, f"words of sharedarrays._layout that {DOC} does not describe: {extra}"


# ---------------------------------------------------------------- the parser itself

_WRONG = """
| constant | value | field |
|---|---|---|
| `SegmentDescriptor.WRITER_OFFSET` | 161 | writer |
| `SegmentDescriptor.NO_SUCH_OFFSET` | 1 | nothing |
| `NoSuchDescriptor.X_OFFSET` | 1 | nothing |
| `QueueDescriptor.LEFT` | 0x8000000000000000 | bit 63 \\| flags |
| `SegmentDescriptor.PAGE` | four K | not a number |
| — | 148 | reserved |

| futex word | waiters word |
|---|---|
| `SegmentDescriptor.POOL_SEQ_OFFSET` | `SegmentDescriptor.POOL_WAITERS_OFFSET` |
"""


class _FakeLayout:
    class SegmentDescriptor:
        WRITER_OFFSET = 160
        PAGE = 4096

    class QueueDescriptor:
        LEFT = -(1 << 63)  # a Java-style signed long is the same word


def test_parser_reports_wrong_unknown_and_unparseable_rows():
    parsed = rows(_WRONG)
    assert [r.id for r in parsed] == [
        "SegmentDescriptor.WRITER_OFFSET",
        "SegmentDescriptor.NO_SUCH_OFFSET",
        "NoSuchDescriptor.X_OFFSET",
        "QueueDescriptor.LEFT",
        "SegmentDescriptor.PAGE",
    ]
    problems = [mismatch(r, _FakeLayout) for r in parsed]
    assert problems[0] == "SegmentDescriptor.WRITER_OFFSET: the document says 161, sharedarrays._layout has 160"
    assert problems[1] is not None and "has no constant NO_SUCH_OFFSET" in problems[1]
    assert problems[2] is not None and "has no class NoSuchDescriptor" in problems[2]
    assert problems[3] is None
    assert problems[4] == "SegmentDescriptor.PAGE: value 'four K' is not a decimal or 0x number"


def test_parser_reads_the_values_the_document_uses():
    assert parse("`4096`") == 4096
    assert parse("0x0052524152414853") == 0x0052524152414853
    assert parse("1_099_511_627_776") == 1 << 40
    assert parse("-1") == -1
    assert parse("—") is None
    assert cells(r"| `a \| b` | 2 |") == ["`a | b`", "2"]
