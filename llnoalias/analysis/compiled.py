"""The compiled domain functions (``_cdomain.c``), when there are some.

``cdomain`` is the extension module, or None where it was not built (no C compiler or
Python headers where the package was installed) or ``LLNOALIAS_PURE=1`` asks for pure
Python. ``knownbits`` and ``interval`` hand it their Python originals, which it calls for
whatever does not fit 64 bits; both give the same answers (tests/test_cdomain.py)."""

from __future__ import annotations

from ..ir.native import load

cdomain = load("llnoalias.analysis._cdomain")

__all__ = ["cdomain"]
