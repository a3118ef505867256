"""Splicing changes into the original text.

Every change llnoalias makes is an edit (``text`` replaces ``[start, end)``, see ``Editor``),
plus lines appended at the end. All other bytes are copied through untouched, so
comments, debug records, unknown syntax and line endings come out exactly as they went in.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter

from .. import compiled, shortcuts
from .source import SourceFile

#: the compiled reader (``_body_reader.c``), or None: the Python code here
_cscan = compiled.load("body_reader")

#: an edit's place: its start, its end and its order among edits at one place
_PLACE = itemgetter(0, 1, 2)

#: appended lines (or blocks of lines: ``append_block``) kept one string each until this
#: many, then joined into one: a module of 20,000 small kernels appends 100,000 lines
#: (3.4 MB of text, 9 MB as separate strings)
PACK = 4096

#: the order of the appended lines' edits in ``encoded``: after every edit made at the
#: text's end (an edit's order is a small number: 0, or 1 to come after those of 0)
LAST = 1 << 62


class Editor:
    """The edits of one run. Each is a tuple ``(start, end, order, text)``: ``text``
    replaces ``start:end`` of the source, and among edits at the same place lower orders
    come first, then the earlier made (a plain tuple: a large module gets one per access).
    Appended lines are kept joined, ``PACK`` at a time, by the file's line ending."""

    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.edits: list[tuple[int, int, int, str]] = []
        #: the appended lines not yet joined into ``_packed``
        self.appended: list[str] = []
        #: earlier appended lines, ``PACK`` of them joined by ``src.newline`` in each string
        self._packed: list[str] = []

    def insert(self, offset: int, text: str, order: int = 0) -> None:
        self.edits.append((offset, offset, order, text))

    def replace(self, start: int, end: int, text: str) -> None:
        self.edits.append((start, end, 0, text))

    def append_line(self, line: str) -> None:
        """Add ``line`` after the text's end; it may be a block of lines joined by the file's
        line ending, none at its end, kept as the one string (``appended_lines`` splits it)."""
        lines = self.appended
        lines.append(line)
        if len(lines) >= PACK:
            self._packed.append(self.src.newline.join(lines))
            lines.clear()

    def append_lines(self, lines: list[str]) -> None:
        """``append_line`` for each of ``lines``, in order."""
        appended = self.appended
        appended.extend(lines)
        if len(appended) >= PACK:
            self._packed.append(self.src.newline.join(appended))
            appended.clear()

    #: ``append_line`` of a block of lines (a new domain's lines): the same method
    append_block = append_line

    def appended_lines(self) -> Iterator[str]:
        """The lines appended so far, one by one, in order."""
        nl = self.src.newline
        for part in self._packed:
            yield from part.split(nl)
        for part in self.appended:
            yield from part.split(nl)

    def written(self) -> str:
        """All the text the edits and the appended lines put in, one piece a line (what the
        output holds that the input did not)."""
        return "\n".join([*(new for _, _, _, new in self.edits), *self._packed, *self.appended])

    @property
    def changed(self) -> bool:
        return bool(self.edits or self.appended or self._packed)

    def render(self) -> str:
        if not self.changed:
            return self.src.text
        data = self.encoded()
        if data is not None:
            return data.decode("ascii")
        return "".join(self.chunks())

    def encoded(self) -> bytes | None:
        """The output as bytes, made in one compiled pass (``_body_reader.splice``: a large
        module's output is a hundred thousand pieces, which ``chunks`` yields one by one),
        where the reader's extension is built and the text, the edits and the appended
        lines are all ASCII (then UTF-8 is ASCII, and ``surrogateescape`` never applies);
        else None (and where the shortcut ``encoded`` is off): use ``chunks``. The same
        bytes as ``chunks`` encoded."""
        if _cscan is None or not self.changed or not shortcuts.ON["encoded"]:
            return None
        # The appended lines go in as edits at the text's end, after every other edit there
        # (``LAST``): each piece copied once, into the output, not first joined into one
        # string (a module of 20,000 small kernels appends 7 MB, alive beside the output).
        text = self.src.text
        edits = self.edits
        made = len(edits)
        end = len(text)
        edits.extend([(end, end, LAST, part) for part in self._tail()])
        try:
            data: bytes | None = _cscan.splice(text, edits, "")
        finally:
            del edits[made:]
        return data

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
        yield from self._tail()

    def _tail(self) -> Iterator[str]:
        """The appended lines, after the text."""
        if self.appended or self._packed:
            text = self.src.text
            nl = self.src.newline
            if text and not text.endswith("\n"):
                yield nl
            for part in self._packed:
                yield part
                yield nl
            if self.appended:
                yield nl.join(self.appended)
                yield nl
