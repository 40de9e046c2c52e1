"""The static final integer constants of Java classes, read from their sources and evaluated as javac
folds them: literals (decimal, hex, octal, binary, '_', 'L'), other constants (same class, static
imports, Class.NAME, Long.MIN_VALUE and the like), casts to a primitive, unary + - ~ and the binary
arithmetic, shift and bit operators, with int and long wrapping as in Java. Nothing else is evaluated:
any other form is a TableError naming the file and line."""
import os
import re
from dataclasses import dataclass

from .table import TableError

BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
BOXES = {"Byte": "byte", "Short": "short", "Integer": "int", "Long": "long"}
FIELD = re.compile(r"\b((?:(?:public|protected|private|static|final|transient|volatile)\s+)+)"
                   r"(byte|short|int|long)\s+([A-Za-z_]\w*)\s*=\s*([^;{}]*);")
TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F_]+[lL]?|0[bB][01_]+[lL]?|[0-9][0-9_]*[lL]?)"
                   r"|([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)|(>>>|<<|>>|[-+*/%&|^~()]))")
# binary operators by precedence, loosest first, as Java's
LEVELS = (("|",), ("^",), ("&",), ("<<", ">>", ">>>"), ("+", "-"), ("*", "/", "%"))


def wrap(value, kind):
    """value as Java's kind holds it (two's complement, BITS[kind] wide)."""
    half = 1 << (BITS[kind] - 1)
    return (value + half) % (2 * half) - half


@dataclass
class Field:
    name: str
    kind: str  # byte, short, int or long
    public: bool
    expr: str
    line: int  # of the declaration's first line
    end: int  # of its ';'
    doc: str  # its javadoc as one line, or ""
    comment: str  # the // comment after its ';', or ""


@dataclass
class JavaClass:
    path: str
    name: str
    package: str
    imports: dict  # simple name -> qualified
    static_imports: list  # (qualified class, member or "*")
    fields: dict  # name -> Field, in declaration order
    lines: list  # of the source

    def blank_between(self, a, b):
        """True if a blank line separates fields a and b (a declared first)."""
        return any(not l.strip() for l in self.lines[a.end:b.line - 1])


def strip(text):
    """text with comments and the contents of string and char literals blanked (offsets and newlines kept),
    and the comments as (start offset, end offset, text)."""
    out, comments, i, n = [], [], 0, len(text)
    blank = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated comment")
            j += 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i] + blank(text[i + 1:j]) + text[i])
            i = j + 1
            continue
        else:
            out.append(text[i])
            i += 1
            continue
        comments.append((i, j, text[i:j]))
        out.append(blank(text[i:j]))
        i = j
    return "".join(out), comments


def javadoc_text(comment):
    """A /** */ comment as one line of plain text."""
    body = re.sub(r"^/\*\*|\*/$", "", comment)
    body = " ".join(l.strip().lstrip("*").strip() for l in body.split("\n"))
    body = re.sub(r"\{@(?:link|linkplain|code)\s+([^}]*)\}", lambda m: m[1].strip().lstrip("#").replace("#", "."), body)
    return " ".join(body.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").split())


def parse_class(path, name):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise TableError(f"cannot read class {name}: {e}")
    rel = os.path.relpath(path)
    try:
        code, comments = strip(text)
    except ValueError as e:
        raise TableError(f"{rel}: {e}")
    line_of = lambda offset: text.count("\n", 0, offset) + 1
    m = re.search(r"^\s*package\s+([\w.]+)\s*;", code, re.MULTILINE)
    package = m[1] if m else ""
    imports = {q.rsplit(".", 1)[1]: q for q in re.findall(r"^\s*import\s+([\w.]+)\s*;", code, re.MULTILINE)}
    static_imports = [tuple(s.rsplit(".", 1)) for s in re.findall(r"^\s*import\s+static\s+([\w.]+(?:\.\*)?)\s*;", code, re.MULTILINE)]
    m = re.search(rf"\b(?:class|interface|enum)\s+{name}\b[^{{]*\{{", code)
    if m is None:
        raise TableError(f"{rel}: no class {name}")
    docs = {line_of(e): c for s, e, c in comments if c.startswith("/**")}  # by the line they end on
    trailing = {line_of(s): c[2:].strip() for s, e, c in comments if c.startswith("//")}
    fields, depth, at = {}, 1, m.end()
    for f in FIELD.finditer(code, m.end()):
        depth += code.count("{", at, f.start()) - code.count("}", at, f.start())
        at = f.start()
        if depth < 1:
            break  # past the class's closing brace
        modifiers = f[1].split()
        if depth > 1 or "static" not in modifiers or "final" not in modifiers:
            continue  # a nested class's, or not a constant
        line, end = line_of(f.start()), line_of(f.end())
        doc = docs.get(line - 1, "")
        fields[f[3]] = Field(f[3], f[2], "public" in modifiers, " ".join(f[4].split()), line, end,
                             javadoc_text(doc) if doc else "", trailing.get(end, ""))
    return JavaClass(path, name, package, imports, static_imports, fields, text.split("\n"))


class Constants:
    """Reads the classes under a source root (one top-level class per file, as javac requires) on demand."""

    def __init__(self, source_root):
        self.root = source_root
        self.classes = {}  # qualified name -> JavaClass
        self.values = {}  # (qualified name, field) -> (value, kind)
        self.evaluating = []

    def load(self, qualified):
        if qualified not in self.classes:
            package, _, name = qualified.rpartition(".")
            path = os.path.join(self.root, *package.split("."), name + ".java")
            self.classes[qualified] = parse_class(path, name)
        return self.classes[qualified]

    def public(self, qualified):
        """The class and its public static final byte, short, int and long fields as [(field, value)], in
        declaration order (the others are evaluated only as far as these use them)."""
        c = self.load(qualified)
        return c, [(f, self.value(qualified, f.name)[0]) for f in c.fields.values() if f.public]

    def origin(self, c, f):
        """The field whose literal f's value is: f, or the end of its chain of initializers that only name another constant."""
        while re.fullmatch(r"[A-Za-z_$][\w$.]*", f.expr):
            target = self.owner(c, f.expr)
            if target is None:
                break  # Long.MIN_VALUE and the like
            c = self.load(target[0])
            f = c.fields[target[1]]
        return f

    def exists(self, qualified):
        return os.path.exists(os.path.join(self.root, *qualified.split(".")) + ".java")

    def value(self, qualified, name):
        """(value, kind) of a constant of the class."""
        key = (qualified, name)
        if key in self.values:
            return self.values[key]
        c = self.load(qualified)
        f = c.fields.get(name)
        if f is None:
            raise TableError(f"{os.path.relpath(c.path)}: no static final integer constant {name} in {c.name}")
        if key in self.evaluating:
            raise TableError(f"{os.path.relpath(c.path)}:{f.line}: {name} depends on itself")
        self.evaluating.append(key)
        try:
            value, kind = Expression(self, c, f).evaluate()
        finally:
            self.evaluating.pop()
        if kind == "long" and f.kind != "long":
            raise TableError(f"{os.path.relpath(c.path)}:{f.line}: {name} is {f.kind} but its value is a long")
        if f.kind in ("byte", "short") and wrap(value, f.kind) != value:
            raise TableError(f"{os.path.relpath(c.path)}:{f.line}: {value} does not fit {name}'s {f.kind}")
        self.values[key] = (value, f.kind if f.kind == "long" else "int")
        return self.values[key]

    def resolve_class(self, c, name):
        """The qualified name of class `name` as c's source names it, or None if no source of it is here."""
        for qualified in (c.imports.get(name), f"{c.package}.{name}" if c.package else name, name):
            if qualified and self.exists(qualified):
                return qualified
        return None

    def owner(self, c, dotted):
        """(qualified class, field) that a name in c's source means, or None if no source here has it."""
        parts = dotted.split(".")
        if len(parts) > 1:
            owner = self.resolve_class(c, ".".join(parts[:-1]))
            return (owner, parts[-1]) if owner else None
        if dotted in c.fields:
            return self.qualified(c), dotted
        for owner, member in c.static_imports:
            if member in ("*", dotted) and self.exists(owner) and dotted in self.load(owner).fields:
                return owner, dotted
        return None

    def reference(self, c, f, dotted):
        """(value, kind) of a name in an initializer of class c."""
        target = self.owner(c, dotted)
        if target is not None:
            return self.value(*target)
        box, _, member = dotted.partition(".")
        if box in BOXES and member in ("MIN_VALUE", "MAX_VALUE"):
            kind = BOXES[box]
            half = 1 << (BITS[kind] - 1)
            return (-half if member == "MIN_VALUE" else half - 1), "long" if kind == "long" else "int"
        raise TableError(f"{os.path.relpath(c.path)}:{f.line}: cannot resolve {dotted} in {f.name}'s initializer")

    def qualified(self, c):
        return f"{c.package}.{c.name}" if c.package else c.name


class Expression:
    """A recursive-descent evaluator of one initializer; values are (int, 'int' or 'long')."""

    def __init__(self, constants, c, f):
        self.constants, self.c, self.f = constants, c, f
        self.tokens, pos = [], 0
        text = f.expr
        while pos < len(text.rstrip()):
            m = TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                self.fail(f"cannot read {text[pos:].strip()!r}")
            self.tokens.append(("number", m[1]) if m[1] else ("name", re.sub(r"\s", "", m[2])) if m[2] else ("op", m[3]))
            pos = m.end()
        self.i = 0

    def fail(self, why):
        raise TableError(f"{os.path.relpath(self.c.path)}:{self.f.line}: {self.f.name} = {self.f.expr}: {why}")

    def peek(self, offset=0):
        i = self.i + offset
        return self.tokens[i] if i < len(self.tokens) else (None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def evaluate(self):
        v = self.binary(0)
        if self.i != len(self.tokens):
            self.fail(f"unexpected {self.peek()[1]!r}")
        return v

    def binary(self, level):
        if level == len(LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in LEVELS[level]:
            op = self.take()[1]
            left = self.apply(op, left, self.binary(level + 1))
        return left

    def apply(self, op, left, right):
        (a, ka), (b, kb) = left, right
        if op in ("<<", ">>", ">>>"):
            kind = ka  # a shift has its left operand's type; the distance is masked to its width
            b &= BITS[kind] - 1
            v = a << b if op == "<<" else a >> b if op == ">>" else (a % (1 << BITS[kind])) >> b
            return wrap(v, kind), kind
        kind = "long" if "long" in (ka, kb) else "int"
        if op in ("/", "%"):
            if b == 0:
                self.fail("division by zero")
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # Java truncates toward zero
            v = q if op == "/" else a - q * b
        else:
            v = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
        return wrap(v, kind), kind

    def unary(self):
        kind, text = self.take()
        if kind == "op" and text in ("+", "-", "~"):
            v, k = self.unary()
            return wrap(v if text == "+" else -v if text == "-" else ~v, k), k
        if kind == "op" and text == "(":
            cast = self.peek()
            if cast[0] == "name" and cast[1] in BITS and self.peek(1) == ("op", ")"):
                self.i += 2
                v, _ = self.unary()
                return wrap(v, cast[1]), "long" if cast[1] == "long" else "int"
            v = self.binary(0)
            if self.take() != ("op", ")"):
                self.fail("missing ')'")
            return v
        if kind == "number":
            return self.literal(text)
        if kind == "name":
            return self.constants.reference(self.c, self.f, text)
        self.fail(f"unexpected {text!r}" if text else "unexpected end")

    def literal(self, text):
        long = text[-1] in "lL"
        digits = (text[:-1] if long else text).replace("_", "")
        base = {"0x": 16, "0b": 2}.get(digits[:2].lower(), 8 if len(digits) > 1 and digits[0] == "0" else 10)
        try:
            v = int(digits[2:] if base in (2, 16) else digits, base)
        except ValueError:
            self.fail(f"{text} is no number")
        decimal = base == 10
        kind = "long" if long else "int"
        # a decimal literal is the value; hex, octal and binary are its bits (0xFFFFFFFF is -1)
        if v >= 1 << BITS[kind] or decimal and v > (1 << (BITS[kind] - 1)) - 1:
            self.fail(f"{text} does not fit {'a long' if long else 'an int'}")
        return wrap(v, kind), kind


def read_enum(path, name):
    """The constants of a plain enum (no arguments or bodies), in order: their ordinals are their indices."""
    try:
        with open(path) as f:
            code, _ = strip(f.read())
    except (OSError, ValueError) as e:
        raise TableError(f"cannot read enum {name}: {e}")
    m = re.search(rf"\benum\s+{name}\s*\{{([^;}}]*)[;}}]", code)
    if m is None:
        raise TableError(f"{os.path.relpath(path)}: no enum {name}")
    names = [n.strip() for n in m[1].split(",") if n.strip()]
    bad = [n for n in names if not re.fullmatch(r"[A-Z][A-Z0-9_]*", n)]
    if bad or not names:
        raise TableError(f"{os.path.relpath(path)}: enum {name}'s constants are not plain names: {bad or 'none'}")
    return names
