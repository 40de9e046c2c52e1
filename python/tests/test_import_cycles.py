"""No import cycles among the sharedarrays modules.

Read from the sources with ast: every import of a module of the package, at the top or inside a function
(an import deferred into a function only hides a cycle until the first call), is an edge. A cycle means
the modules are not layered; fix it by moving what the lower module needs further down.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "sharedarrays"
SOURCES = Path(__file__).resolve().parents[1] / PACKAGE


def module_name(path: Path) -> str:
    return PACKAGE if path.name == "__init__.py" else f"{PACKAGE}.{path.stem}"


def imported(source: str, modules: set[str]) -> set[str]:
    """The modules (of `modules`) that a module of the package with this source imports."""
    out = set()

    def add(name: str) -> None:
        if name in modules:
            out.add(name)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level > 1:
                continue  # above the package: nothing of ours
            base = PACKAGE if node.level == 1 else None
            module = ".".join(p for p in (base, node.module) if p)
            if module != PACKAGE:
                add(module)
            else:  # from . import x: the submodule x, or a name of __init__
                for alias in node.names:
                    sub = f"{PACKAGE}.{alias.name}"
                    add(sub if sub in modules else PACKAGE)
    return out


def import_graph() -> dict[str, set[str]]:
    paths = sorted(SOURCES.glob("*.py"))
    # _native.c is a module too (an extension, importing nothing of ours): "from . import _native" is no import of __init__
    modules = {module_name(p) for p in paths} | {f"{PACKAGE}.{p.stem}" for p in SOURCES.glob("*.c")}
    return {module_name(p): imported(p.read_text(encoding="utf-8"), modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle, each once, starting at its smallest module ([a, b, ..., a]), shortest first."""
    found = []
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    found.append(path + [start])
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return sorted(found, key=lambda c: (len(c), c))


def short(name: str) -> str:
    return name.removeprefix(f"{PACKAGE}.")


def test_no_import_cycles():
    found = cycles(import_graph())
    shown = [" -> ".join(short(m) for m in c) for c in found[:20]]
    if len(found) > 20:
        shown.append(f"... and {len(found) - 20} longer ones")
    assert not found, f"{len(found)} import cycles among the sharedarrays modules:\n" + "\n".join(shown)


def test_the_graph_is_read():
    # a reader that found no imports would pass the test above vacuously
    graph = import_graph()
    assert len(graph) > 15
    assert {"sharedarrays._segment", "sharedarrays._sweep"} <= graph["sharedarrays._array"]
    assert "sharedarrays._array" in graph[PACKAGE]


def test_every_form_of_import_and_late_imports_are_edges():
    modules = {PACKAGE, "sharedarrays._a", "sharedarrays._b", "sharedarrays._c", "sharedarrays._d", "sharedarrays._e"}
    source = ("import os\nfrom . import _a, VERSION\nfrom ._b import x as y\nimport sharedarrays._c\n"
              "from sharedarrays import _d\nfrom .. import elsewhere\n\ndef f():\n    from ._e import g\n")
    assert imported(source, modules) == modules


def test_cycles_are_reported_once_each():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    assert cycles(graph) == [["d", "d"], ["a", "b", "a"], ["a", "b", "c", "a"]]  # shortest first
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
