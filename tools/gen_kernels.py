#!/usr/bin/env python3
"""Writes what exists once per element type: the kernel loops (ScalarKernels.java and
SimdKernelLoops.java in library/.../internal/kernel, for comparisons, logic, where and masks
ScalarMaskKernels.java and SimdMaskLoops.java, and SimdMathLoops.java, the SIMD loops of the
math functions, one per MathOp and lane type), the DSL's typed API (Indexing.kt,
TypedMinMax.kt and ArrayFactories.kt in dsl/.../dsl), and the Python peer's protocol constants
(python/sharedarrays/_layout.py).

Java has no generics over primitive types, and Kotlin's typed accessors differ by return type,
so these are written once here as templates and filled in for each row of the element-type
table, which this script reads from ElementType.java (the one table; it is not repeated here).
_layout.py's constants are read from the Java descriptor classes (kernelgen/javaconst.py evaluates
their initializers), so the Python peer cannot drift from them.

    python3 tools/gen_kernels.py           rewrite the files (they are committed)
    python3 tools/gen_kernels.py --check   exit 1 if a committed file differs from what this writes
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep tools/ free of __pycache__

from kernelgen.javaconst import Constants, read_enum  # noqa: E402
from kernelgen.kotlin import factories, indexing, reductions  # noqa: E402
from kernelgen.masks import read_symbols, scalar_mask_kernels, vector_mask_kernels  # noqa: E402
from kernelgen.pylayout import python_layout  # noqa: E402
from kernelgen.scalar import scalar_kernels  # noqa: E402
from kernelgen.table import TableError, read_ops, read_types  # noqa: E402
from kernelgen.vector import vector_kernels  # noqa: E402
from kernelgen.vmath import read_math_ops, vector_math  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
JAVA_DIR = os.path.join(ROOT, "library", "src", "main", "java")
KERNEL_DIR = os.path.join(JAVA_DIR, "dev", "sharedarrays", "internal", "kernel")
DSL_DIR = os.path.join(ROOT, "dsl", "src", "main", "kotlin", "dev", "sharedarrays", "dsl")


def generate():
    """{path: text} of every generated file."""
    types = read_types(os.path.join(KERNEL_DIR, "ElementType.java"))
    ops = read_ops(os.path.join(KERNEL_DIR, "Op.java"))
    cmps = read_symbols(os.path.join(KERNEL_DIR, "Cmp.java"), "Cmp")
    logics = read_symbols(os.path.join(KERNEL_DIR, "Logic.java"), "Logic")
    math_ops = read_math_ops(os.path.join(KERNEL_DIR, "MathOp.java"))
    return {
        os.path.join(KERNEL_DIR, "ScalarKernels.java"): scalar_kernels(types),
        os.path.join(KERNEL_DIR, "SimdKernelLoops.java"): vector_kernels(types, ops),
        os.path.join(KERNEL_DIR, "ScalarMaskKernels.java"): scalar_mask_kernels(types, cmps, logics),
        os.path.join(KERNEL_DIR, "SimdMaskLoops.java"): vector_mask_kernels(types, cmps, logics),
        os.path.join(KERNEL_DIR, "SimdMathLoops.java"): vector_math(math_ops),
        os.path.join(DSL_DIR, "Indexing.kt"): indexing(types),
        os.path.join(DSL_DIR, "TypedMinMax.kt"): reductions(types),
        os.path.join(DSL_DIR, "ArrayFactories.kt"): factories(types),
        os.path.join(ROOT, "python", "sharedarrays", "_layout.py"):
            python_layout(Constants(JAVA_DIR), types, read_enum(os.path.join(JAVA_DIR, "dev", "sharedarrays", "Backend.java"), "Backend")),
    }


def first_difference(committed, generated):
    """(line number, committed line, generated line) of the first difference, or None."""
    if committed == generated:
        return None
    a, b = committed.splitlines(), generated.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<end of file>"
        y = b[i] if i < len(b) else "<end of file>"
        if x != y:
            return i + 1, x, y
    return len(a), "(line endings differ)", ""


def check(files):
    stale = 0
    for path, text in files.items():
        rel = os.path.relpath(path, ROOT)
        try:
            with open(path) as f:
                committed = f.read()
        except OSError:
            print(f"gen_kernels: {rel} is missing", file=sys.stderr)
            stale += 1
            continue
        diff = first_difference(committed, text)
        if diff:
            line, was, want = diff
            print(f"gen_kernels: {rel} differs from its generator at line {line}:\n"
                  f"  file:      {was}\n  generated: {want}", file=sys.stderr)
            stale += 1
    if stale:
        print("gen_kernels: run python3 tools/gen_kernels.py and commit the result", file=sys.stderr)
        return 1
    print(f"gen_kernels: OK, {', '.join(os.path.basename(p) for p in files)} match the generator")
    return 0


def main():
    parser = argparse.ArgumentParser(description="Writes the per-element-type kernel loops and DSL functions, and the Python peer's constants.")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = parser.parse_args()
    try:
        files = generate()
    except TableError as e:
        print(f"gen_kernels: {e}", file=sys.stderr)
        return 2
    if args.check:
        return check(files)
    for path, text in files.items():
        with open(path, "w") as f:
            f.write(text)
        print("wrote", os.path.relpath(path, ROOT), text.count("\n"), "lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
