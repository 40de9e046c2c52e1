"""The element-type table, read from ElementType.java and Op.java (never repeated here)."""
import os
import re
from dataclasses import dataclass

# the ops the kernels implement, by family; read_ops checks Op.java has each
ARITH = ("ADD", "SUB", "MUL", "DIV")
BINARY = ARITH + ("ASSIGN",)
REDUCTIONS = ("SUM", "MIN", "MAX")
SYMBOL = {"ADD": "+", "SUB": "-", "MUL": "*", "DIV": "/"}

# Java primitive of each (kind, itemSize) the table may use; unsigned types share the signed storage
PRIMITIVE = {
    ("f", 8): "double", ("f", 4): "float",
    ("i", 8): "long", ("i", 4): "int", ("i", 2): "short", ("i", 1): "byte",
    ("u", 8): "long", ("u", 4): "int", ("u", 2): "short", ("u", 1): "byte",
    ("b", 1): "byte",
}


class TableError(Exception):
    pass


@dataclass(frozen=True)
class Type:
    name: str
    kind: str  # 'f', 'i', 'u' or 'b' (bool: a byte holding 0 or 1), as numpy
    size: int  # bytes
    code: int  # stored in a segment's control block; never changes
    descr: str  # numpy's

    @property
    def marker(self):
        """The public marker class: the row's name (F64), or for a word (BOOL) the word capitalised (Bool)."""
        return self.name if any(c.isdigit() for c in self.name) else self.name.capitalize()

    @property
    def article(self):
        return "a" if self.is_bool else "an"

    @property
    def jtype(self):
        return PRIMITIVE[(self.kind, self.size)]

    @property
    def layout(self):
        return "JAVA_" + self.jtype.upper()

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_bool(self):
        """Bool has no arithmetic: fill, copy and the integer reductions (sum counts the true elements)."""
        return self.kind == "b"

    @property
    def is_u64(self):
        return self.kind == "u" and self.size == 8

    def widen(self, x):
        """Java expression: the value of element x (of this type's storage) as a long."""
        if self.is_bool:
            return f"({x} != 0 ? 1L : 0L)"
        if self.size == 8:
            return x
        if self.kind == "i":
            return f"(long) {x}"
        if self.size == 4:
            return f"Integer.toUnsignedLong({x})"
        box = {2: "Short", 1: "Byte"}[self.size]
        return f"(long) {box}.toUnsignedInt({x})"


ROW = re.compile(r"""\s*([A-Z][A-Z0-9_]*)\((\d+), "([^"]*)", '([a-z])', (\d+)\)([,;])\s*""")


def read_types(path):
    """The rows of the ElementType enum, in declaration order; TableError if they do not parse."""
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise TableError(f"cannot read the element-type table: {e}")
    path = os.path.relpath(path)
    start = next((i for i, l in enumerate(lines) if l.startswith("public enum ElementType {")), None)
    if start is None:
        raise TableError(f"{path}: no line 'public enum ElementType {{'")
    types = []
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if not line.strip() or line.strip().startswith("//"):
            continue
        m = ROW.fullmatch(line)
        if not m:
            raise TableError(f"{path}:{i + 1}: not a row NAME(code, \"descr\", 'kind', itemSize): {line.strip()}")
        name, kind, size = m[1], m[4], int(m[5])
        if (kind, size) not in PRIMITIVE:
            raise TableError(f"{path}:{i + 1}: no Java primitive for kind '{kind}' of {size} bytes")
        types.append(Type(name, kind, size, int(m[2]), m[3]))
        if m[6] == ";":
            return types
    raise TableError(f"{path}: the rows of ElementType do not end with ';'")


def read_ops(path):
    """The constants of the Op enum, in order; TableError unless it has every op used here."""
    try:
        with open(path) as f:
            ops = re.findall(r"^\s*([A-Z][A-Z0-9_]*)\(\"[^\"]*\"\)[,;]", f.read(), re.MULTILINE)
    except OSError as e:
        raise TableError(f"cannot read the operations: {e}")
    path = os.path.relpath(path)
    missing = [op for op in BINARY + REDUCTIONS if op not in ops]
    if missing:
        raise TableError(f"{path}: no constant {', '.join(missing)} in Op")
    return ops
