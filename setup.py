"""The compiled body reader (llnoalias/ir/_cscan.c), optional: where no C compiler or no
Python headers are found the package installs without it and reads with the pure-Python
code (the same model; tests/test_cscan.py compares the two)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("llnoalias.ir._cscan", ["llnoalias/ir/_cscan.c"], optional=True,
                             extra_compile_args=["-O2"])])
