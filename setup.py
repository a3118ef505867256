"""The compiled parts, each optional: where no C compiler or no Python headers are found the
package installs without them and runs the pure-Python references, which give the same
answers. What is built is ``llnoalias/compiled.py``'s ``TWINS`` (read here without importing
the package), each C file beside the module it mirrors; see CONTRIBUTING.md, "The C twins"."""

import os
import runpy

from setuptools import Extension, setup

TWINS = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "llnoalias", "compiled.py"))["TWINS"]

setup(ext_modules=[
    Extension(t.module, [t.source], optional=True, extra_compile_args=["-O2"],
              depends=[os.path.join(os.path.dirname(t.source), d) for d in t.depends])
    for t in TWINS
])
