"""The command line: thin click commands and rich output. The only layer that prints.

``main`` (the console script) reads plain single-file command lines without importing
click (:mod:`.entry`); ``cli``, the click group, is imported on first use."""

from __future__ import annotations

from .entry import main

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

    from .main import cli


def __getattr__(name: str) -> Any:
    if name == "cli":
        from .main import cli

        return cli
    raise AttributeError(f"module 'llnoalias.cli' has no attribute {name!r}")


__all__ = ["cli", "main"]
