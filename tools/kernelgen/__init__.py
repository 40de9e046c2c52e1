"""The templates of tools/gen_kernels.py, one module per generated file plus the table and Java helpers."""
