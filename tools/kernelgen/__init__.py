"""The templates of tools/gen_kernels.py, one module per generated file, plus the table, the Java text helpers
and javaconst (the Java constants _layout.py is written from)."""
