"""Regular expressions compiled on first use.

Compiling a pattern is pure Python in CPython's ``re`` and costs 0.2-5 ms for the long
patterns of the operand reader; a module that compiles a dozen at import makes every run
pay for all of them, also runs that never read that kind of instruction. A
:class:`LazyPattern` compiles on the first call of any of its methods and then hands out
the compiled pattern's own bound methods, so a call costs what it costs on a compiled
pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "split")


class LazyPattern:
    """``re.compile(pattern, flags)``, done when a method is first used."""

    __slots__ = ("pattern", "flags", *_METHODS)

    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    search: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]
    split: Callable[..., list[str]]

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, self.flags)

    def __getattr__(self, name: str) -> Any:
        # Only reached while a method slot is still empty: fill them all at once.
        if name not in _METHODS:
            raise AttributeError(name)
        compiled = self.compiled()
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled when it is first used (see :class:`LazyPattern`)."""
    return LazyPattern(pattern, flags)


__all__ = ["LazyPattern", "lazy"]
