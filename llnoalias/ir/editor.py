"""Splicing changes into the original text.

Every change llnoalias makes is an ``Edit`` (replace ``[start, end)`` with ``text``),
plus lines appended at the end. All other bytes are copied through untouched, so
comments, debug records, unknown syntax and line endings come out exactly as they went in.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..plain import ValueRecord
from .source import SourceFile


class Edit(ValueRecord):
    """One edit: ``text`` replaces ``start:end`` of the source (see :class:`Editor`).
    Not changed once made (a plain class: a dataclass costs about 1 ms at every start)."""

    __slots__ = ("start", "end", "text", "order")
    _FIELDS = __slots__

    def __init__(self, start: int, end: int, text: str, order: int = 0) -> None:
        self.start = start
        self.end = end
        self.text = text
        #: among edits at the same place, lower orders come first
        self.order = order



class Editor:
    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.edits: list[Edit] = []
        self.appended: list[str] = []

    def insert(self, offset: int, text: str, order: int = 0) -> None:
        self.edits.append(Edit(offset, offset, text, order))

    def replace(self, start: int, end: int, text: str) -> None:
        self.edits.append(Edit(start, end, text))

    def append_line(self, line: str) -> None:
        self.appended.append(line)

    @property
    def changed(self) -> bool:
        return bool(self.edits or self.appended)

    def render(self) -> str:
        if not self.changed:
            return self.src.text
        return "".join(self.chunks())

    def chunks(self) -> Iterator[str]:
        """The output in pieces: unchanged stretches of the input and the edits between them."""
        text = self.src.text
        if not self.changed:
            yield text
            return
        self.edits.sort(key=lambda e: (e.start, e.end, e.order))
        pos = 0
        for e in self.edits:
            if e.start < pos:
                raise AssertionError(f"overlapping edits at offset {e.start}")
            yield text[pos:e.start]
            yield e.text
            pos = e.end
        yield text[pos:]
        if self.appended:
            nl = self.src.newline
            if text and not text.endswith("\n"):
                yield nl
            yield nl.join(self.appended)
            yield nl
