"""Regular expressions compiled on first use.

Compiling a pattern is pure Python in CPython's ``re`` and costs 0.2-5 ms for the long
patterns of the operand reader; a module that compiles a dozen at import makes every run
pay for all of them, also runs that never read that kind of instruction. A
:class:`LazyPattern` compiles on the first call of any of its methods and then hands out
the compiled pattern's own bound methods, so a call costs what it costs on a compiled
pattern.
"""

from __future__ import annotations

import os
import re
import sys
from array import array
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import Any

#: (pattern, flags) -> the arguments of ``_sre.compile`` after the pattern
#: (the code words are kept as the bytes of an ``array("I")``: marshal reads a list of
#: large ints a hundred times slower)
_Entry = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
_cache: dict[tuple[str, int], _Entry] | None = None
_missed = False
#: a cache that grew past this (patterns of older versions) starts again
_CACHE_LIMIT = 1000

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class LazyPattern:
    """``re.compile(pattern, flags)``, done when a method is first used."""

    __slots__ = ("pattern", "flags", *_METHODS)

    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    search: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    split: Callable[..., list[str]]

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def compiled(self) -> re.Pattern[str]:
        return compile_cached(self.pattern, self.flags)

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


def _cache_file() -> str | None:
    try:
        import _sre

        tag = sys.implementation.cache_tag
        if tag is None or array("I").itemsize != _sre.CODESIZE:
            return None
        return os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                            f"lazyre.{tag}-{sys.hexversion:x}-{_sre.MAGIC}.marshal")
    except (ImportError, AttributeError):
        return None


def _load() -> dict[tuple[str, int], _Entry]:
    global _cache
    if _cache is None:
        _cache = {}
        path = _cache_file()
        if path is not None and not os.environ.get("LLNOALIAS_NO_RE_CACHE"):
            try:
                import marshal

                with open(path, "rb") as fh:
                    loaded = marshal.load(fh)
                if isinstance(loaded, dict):
                    _cache = loaded
            except (OSError, ValueError, EOFError, TypeError):
                pass
    return _cache


def _save() -> None:
    path = _cache_file()
    if path is None or _cache is None or sys.dont_write_bytecode or os.environ.get("LLNOALIAS_NO_RE_CACHE"):
        return
    try:
        import marshal

        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            marshal.dump(_cache, fh)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass


def _from_entry(pattern: str, entry: _Entry) -> re.Pattern[str]:
    import _sre

    flags, code, groups, groupindex, indexgroup = entry
    compiled: re.Pattern[str] = _sre.compile(pattern, flags, array("I", code).tolist(), groups, groupindex,
                                             indexgroup)
    return compiled


def _compile_fresh(pattern: str, flags: int) -> tuple[re.Pattern[str], _Entry | None]:
    """``re.compile``, done the way ``re._compiler.compile`` does it, keeping what it hands
    ``_sre.compile``; plain ``re.compile`` (and no entry) where ``re`` is not what we know."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern, flags)
        code = array("I", _compiler._code(parsed, flags))
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry: _Entry = (int(flags | parsed.state.flags), code.tobytes(), parsed.state.groups - 1, groupindex,
                         tuple(indexgroup))
        compiled = _from_entry(pattern, entry)
        if compiled.pattern == pattern and compiled.groups == parsed.state.groups - 1:
            return compiled, entry
    except Exception:  # noqa: BLE001 - a Python whose re works differently: no cache
        pass
    return re.compile(pattern, flags), None


def save_pending() -> None:
    """Save the cache now if this run added to it (what the exit handler would do), for a
    process that ends with ``os._exit``."""
    global _missed
    if _missed:
        import atexit

        atexit.unregister(_save)
        _missed = False
        _save()


def compile_cached(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the cache between runs where it can be."""
    global _missed
    cache = _load()
    key = (pattern, int(flags))
    entry = cache.get(key)
    if entry is not None:
        try:
            return _from_entry(pattern, entry)
        except Exception:  # noqa: BLE001 - a damaged entry: compile it again
            pass
    compiled, entry = _compile_fresh(pattern, flags)
    if entry is not None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = entry
        if not _missed:
            _missed = True
            import atexit

            atexit.register(_save)
    return compiled


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled when it is first used (see :class:`LazyPattern`)."""
    return LazyPattern(pattern, flags)


__all__ = ["LazyPattern", "compile_cached", "lazy"]
