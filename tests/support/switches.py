"""The switches of the shortcuts as the tests reach them, each one way: the compiled twins
(``llnoalias/compiled.py``) and the table of ``llnoalias/shortcuts.py``.

Each twin is bound once per module that uses it, as ``Twin.bound_as`` in each of
``Twin.holders``; ``twin(key)`` is the compiled module (or None where it is not built or
``LLNOALIAS_PURE`` blocks it), ``switch_twin`` sets that binding in the holders (None: the
pure-Python reference runs there, as ``LLNOALIAS_PURE=KEY`` leaves it, without a fresh
interpreter). A test never patches a twin's binding by its name.

``switch_shortcut`` switches a row of ``shortcuts.SHORTCUTS``: a switch's state in
``shortcuts.ON``, a memo row's memos, each replaced by a ``shortcuts.NoMemo`` where it is
off, or a binding row's globals, each bound to the row's long way where it is off (left as
they are where it is on). A test never patches the code a row names.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest

from llnoalias import compiled, shortcuts

_BY_KEY = {t.key: t for t in compiled.TWINS}


def twin(key: str) -> ModuleType | None:
    """The compiled part ``key``, or None."""
    return compiled.load(key)


def bound(key: str) -> tuple[str, ...]:
    """The holders of ``key`` whose binding is the compiled module now (none that a switch
    set to None or to a stand-in)."""
    t = _BY_KEY[key]
    ext = compiled.load(key)
    if ext is None:
        return ()
    return tuple(h for h in t.holders if getattr(importlib.import_module(h), t.bound_as) is ext)


def switch_twin(m: pytest.MonkeyPatch, key: str, value: Any = None, only: tuple[str, ...] | None = None) -> None:
    """``key``'s binding in each of its holders (in ``only``, a part of them, for a
    shortcut of one of them) set to ``value``: None runs the reference, another object
    (a proxy that counts calls) stands in for the compiled module. The range solver's
    queries, put on ``FunctionRanges`` when it loaded, are set back to the Python ones for
    None (``value`` leaves them: they are methods, not calls through the binding)."""
    t = _BY_KEY[key]
    holders = t.holders if only is None else only
    assert set(holders) <= set(t.holders), f"{holders} are not all holders of {key}: {t.holders}"
    for name in holders:
        m.setattr(importlib.import_module(name), t.bound_as, value)
    if key == "range_solver" and value is None and (only is None or "llnoalias.analysis.ranges.solver" in only):
        from llnoalias.analysis.ranges import solver

        m.setattr(solver.FunctionRanges, "offset", solver.PY_OFFSET)
        m.setattr(solver.FunctionRanges, "int_range", solver.PY_INT_RANGE)


_ROWS = {s.name: s for s in shortcuts.SHORTCUTS}


def shortcut(name: str) -> shortcuts.Shortcut:
    """The row ``name`` of ``shortcuts.SHORTCUTS``."""
    return _ROWS[name]


def _place(dotted: str) -> tuple[ModuleType, str]:
    module, _, attr = dotted.rpartition(".")
    return importlib.import_module(module), attr


def memo_places(name: str) -> list[tuple[ModuleType, str]]:
    """Where the memos of row ``name`` live: (module, global name) each."""
    return [_place(dotted) for dotted in _ROWS[name].memos]


def bind_places(name: str) -> list[tuple[tuple[ModuleType, str], Any]]:
    """The globals row ``name`` binds, (module, global name) each, with the long way it
    binds there when it is off."""
    out = []
    for dotted, long_way in _ROWS[name].binds:
        module, attr = _place(long_way)
        out.append((_place(dotted), getattr(module, attr)))
    return out


def switch_shortcut(m: pytest.MonkeyPatch, name: str, on: bool) -> None:
    """The shortcut ``name`` taken (``on``) or not: the one way a test switches one."""
    row = _ROWS[name]
    if row.memos:
        if not on:
            for module, attr in memo_places(name):
                m.setattr(module, attr, shortcuts.NoMemo())
        return
    if row.binds:
        if not on:
            for (module, attr), long_way in bind_places(name):
                m.setattr(module, attr, long_way)
        return
    m.setitem(shortcuts.ON, name, on)


__all__ = ["bind_places", "bound", "memo_places", "shortcut", "switch_shortcut", "switch_twin", "twin"]
