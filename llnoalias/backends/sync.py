"""Where the version bridge (:mod:`.bridge`) would change a module's synchronization (design
section 7): the rewrites of :data:`.bridge.REWRITES` whose ``changes_sync`` says what they change
(LLVM 24's explicit LDS-DMA waits, its asynchronous LDS loads). Code generated from such a
rewritten module waits where LLVM 22 decides, not where the program does, so a verdict on the
program's waits (``check``, compile's self-check, ``--best``, ``--repair``) needs a code
generator that keeps them (``codegen.verdict_codegen``). Pure: no process, no output."""

from __future__ import annotations

from ..ir.lazyre import lazy
from .bridge import REWRITES


class SyncChange:
    """Where the bridge would change a module's synchronization: the rewrite, the first line
    it changes (1-based), the column and name of the construct on that line, and what the
    rewrite changes (``Rewrite.changes_sync``)."""

    __slots__ = ("rewrite", "line", "col", "construct", "what")

    def __init__(self, rewrite: str, line: int, col: int, construct: str, what: str) -> None:
        self.rewrite = rewrite
        self.line = line
        self.col = col
        self.construct = construct
        self.what = what

    def __repr__(self) -> str:
        return f"SyncChange({self.rewrite!r}, line {self.line}: {self.construct})"


_INTRINSIC_NAME_RE = lazy(r"@(llvm\.[\w.]+)")


def sync_change(text: str) -> SyncChange | None:
    """The first place (by line) where a rewrite of :data:`REWRITES` that changes
    synchronization (``changes_sync``) would change ``text``; None where none would. Each
    such rewrite is applied alone to ``text`` and its first changed line is the place: a
    rewrite keeps line numbers, so that line is the user's."""
    best: SyncChange | None = None
    lines: list[str] | None = None
    for r in REWRITES:
        if not r.changes_sync or r.needle not in text:
            continue
        new, n = r.apply(text)
        if not n:
            continue
        if lines is None:
            lines = text.splitlines(keepends=True)
        i = next((n for n, (old, now) in enumerate(zip(lines, new.splitlines(keepends=True), strict=False)) if old != now), -1)
        if i < 0:
            continue
        if best is not None and best.line <= i + 1:
            continue
        m = _INTRINSIC_NAME_RE.search(lines[i])
        col = m.start() + 1 if m else len(lines[i]) - len(lines[i].lstrip()) + 1
        best = SyncChange(r.name, i + 1, col, m.group(1) if m else r.needle, r.changes_sync)
    return best


__all__ = ["SyncChange", "sync_change"]
