from setuptools import Extension, setup

setup(ext_modules=[Extension("sharedarrays._native", ["sharedarrays/_native.c"], extra_compile_args=["-O2", "-std=gnu11"])])
