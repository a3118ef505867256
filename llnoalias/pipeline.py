"""One annotation run: parse, analyse, transform, splice. The library entry point."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .options import AnnotateOptions


@dataclass
class AnnotateResult:
    #: The rewritten module text (equal to the input when nothing was tagged).
    text: str
    #: What was found and tagged, for ``--stats``, ``explain``, remarks and ``--json``.
    report: Any = field(default=None)


def annotate_text(text: str, path: str = "<stdin>", options: AnnotateOptions | None = None) -> AnnotateResult:
    """Annotate one module's text. Raises ``LLNoaliasError`` on bad input."""
    raise NotImplementedError("the core is being written")
