"""llnoalias: trace GPU memory accesses in textual LLVM IR to their buffers and
write ``!alias.scope`` / ``!noalias`` metadata that LLVM's code generators use.

The Python API is :func:`annotate` (see :mod:`llnoalias.api`); it is imported on first use,
so ``import llnoalias`` costs nothing until then. :mod:`llnoalias.triton` is the Triton
compile hook (``llnoalias.triton.enable()``); importing llnoalias never imports Triton.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

    from .api import AnnotateOptions, AnnotateResult, annotate
    from .diagnostics import LLNoaliasError

_LAZY = {"annotate": "api", "AnnotateOptions": "options", "AnnotateResult": "transform.pipeline",
         "LLNoaliasError": "diagnostics"}


def __getattr__(name: str) -> Any:
    import importlib

    if name == "triton":  # the compile hook; it imports Triton itself only in enable()
        return importlib.import_module(".triton", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'llnoalias' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["AnnotateOptions", "AnnotateResult", "LLNoaliasError", "__version__", "annotate"]
