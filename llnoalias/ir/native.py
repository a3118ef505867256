"""The compiled parts, when there are some: the reader (``_cscan.c``) here, the range
domain (``analysis/_cdomain.c``) through ``load`` too.

``cscan`` is the extension module, or None where it was not built (no C compiler or
Python headers where the package was installed) or ``LLNOALIAS_PURE=1`` asks for the
pure-Python code. Both give the same model (tests/test_cscan.py)."""

from __future__ import annotations

import os
from types import ModuleType


def load(dotted: str) -> ModuleType | None:
    """The extension module ``dotted``, or None where it was not built or
    ``LLNOALIAS_PURE`` asks for the pure-Python code (then it is not imported at all):
    any value but a list of names blocks every compiled part, a comma-separated list of
    the extensions' short names (``_cdomain,_cslice``) blocks those only, to measure
    what one part gives."""
    pure = os.environ.get("LLNOALIAS_PURE")
    if pure:
        names = pure.split(",")
        if not all(n.startswith("_") for n in names) or dotted.rpartition(".")[2] in names:
            return None
    try:
        module: ModuleType = __import__(dotted, fromlist=["_"])
    except ImportError:
        return None
    return module


cscan = load("llnoalias.ir._cscan")

#: every compiled part (``setup.py`` builds each where it can; ``--version`` says which loaded)
EXTENSIONS = ("llnoalias.ir._cscan", "llnoalias.analysis._cdomain", "llnoalias.analysis._cslice",
              "llnoalias.analysis.provenance._fixpoint", "llnoalias.analysis.ranges._solver")

__all__ = ["EXTENSIONS", "cscan", "load"]
