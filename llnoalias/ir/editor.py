"""Splicing changes into the original text.

Every change llnoalias makes is an edit (``text`` replaces ``[start, end)``, see ``Editor``),
plus lines appended at the end. All other bytes are copied through untouched, so
comments, debug records, unknown syntax and line endings come out exactly as they went in.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter

from .source import SourceFile

#: an edit's place: its start, its end and its order among edits at one place
_PLACE = itemgetter(0, 1, 2)


class Editor:
    """The edits of one run. Each is a tuple ``(start, end, order, text)``: ``text``
    replaces ``start:end`` of the source, and among edits at the same place lower orders
    come first, then the earlier made (a plain tuple: a large module gets one per access)."""

    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.edits: list[tuple[int, int, int, str]] = []
        self.appended: list[str] = []

    def insert(self, offset: int, text: str, order: int = 0) -> None:
        self.edits.append((offset, offset, order, text))

    def replace(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, 0, text))

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
        self.edits.sort(key=_PLACE)  # stable: edits at one place keep the order they were made in
        pos = 0
        for start, end, _, new in self.edits:
            if start < pos:
                raise AssertionError(f"overlapping edits at offset {start}")
            yield text[pos:start]
            yield new
            pos = end
        yield text[pos:]
        if self.appended:
            nl = self.src.newline
            if text and not text.endswith("\n"):
                yield nl
            yield nl.join(self.appended)
            yield nl
