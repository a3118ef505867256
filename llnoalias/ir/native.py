"""The compiled reader (``_cscan.c``), when there is one.

``cscan`` is the extension module, or None where it was not built (no C compiler or
Python headers where the package was installed) or ``LLNOALIAS_PURE=1`` asks for the
pure-Python reader. Both give the same model (tests/test_cscan.py)."""

from __future__ import annotations

import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("LLNOALIAS_PURE"):
        return None
    try:
        from . import _cscan  # type: ignore[attr-defined]
    except ImportError:
        return None
    module: ModuleType = _cscan
    return module


cscan = _load()

__all__ = ["cscan"]
