"""The compiled parts, both optional: where no C compiler or no Python headers are found
the package installs without them and runs the pure-Python code, which gives the same
answers (tests/test_cscan.py and tests/test_cdomain.py compare the two).

- ``llnoalias/ir/_cscan.c``: the body reader's hot loop, the line index, the name check;
- ``llnoalias/analysis/_cdomain.c``: the range analysis's known-bits domain functions;
- ``llnoalias/analysis/_cslice.c``: the provenance solver's slice walk;
- ``llnoalias/analysis/_crange.c``: the range analysis's two queries."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("llnoalias.ir._cscan", ["llnoalias/ir/_cscan.c"], optional=True, extra_compile_args=["-O2"]),
    Extension("llnoalias.analysis._cdomain", ["llnoalias/analysis/_cdomain.c"], optional=True,
              depends=["llnoalias/analysis/_int128.h", "llnoalias/analysis/_kbits.h"], extra_compile_args=["-O2"]),
    Extension("llnoalias.analysis._cslice", ["llnoalias/analysis/_cslice.c"], optional=True,
              extra_compile_args=["-O2"]),
    Extension("llnoalias.analysis.provenance._fixpoint", ["llnoalias/analysis/provenance/_fixpoint.c"], optional=True,
              extra_compile_args=["-O2"]),
    Extension("llnoalias.analysis.ranges._solver", ["llnoalias/analysis/ranges/_solver.c"], optional=True,
              depends=["llnoalias/analysis/ranges/_int128.h", "llnoalias/analysis/ranges/_kbits.h"], extra_compile_args=["-O2"]),
])
