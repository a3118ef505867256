"""An input text with its name, its line structure and its line-ending style.

Offsets everywhere in llnoalias are indices into ``SourceFile.text``; this module turns
them into 1-based line and column numbers for diagnostics.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..diagnostics import Location

BOM = "\ufeff"


class SourceFile:
    __slots__ = ("path", "text", "_line_starts", "newline")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._line_starts: Sequence[int] | None = None
        # The line ending new lines are written with: the file's own (CRLF stays CRLF).
        first = text.find("\n")
        self.newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"

    def adopt_line_starts(self, starts: Sequence[int]) -> None:
        """Use a line-start index someone already built (the parser's)."""
        self._line_starts = starts

    @property
    def line_starts(self) -> Sequence[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    def line_of(self, offset: int) -> int:
        """The 1-based line that holds ``offset`` (``line_col``'s line, without its column)."""
        starts = self._line_starts
        return bisect_right(self.line_starts if starts is None else starts, offset)

    def line_col(self, offset: int) -> tuple[int, int]:
        starts = self._line_starts
        if starts is None:
            starts = self.line_starts
        idx = bisect_right(starts, offset) - 1
        return idx + 1, offset - starts[idx] + 1

    def line_text(self, line: int) -> str:
        starts = self.line_starts
        if line < 1 or line > len(starts):
            return ""
        start = starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def location(self, offset: int) -> Location:
        line, col = self.line_col(offset)
        # (a UTF-8 BOM is an error at 1:1, shown as \ufeff: no line is shown without it)
        return Location(self.path, line, col, self.line_text(line))
