"""The line layer of the module reader: line offsets, logical lines (a bracket continued
over lines), and the state the readers share."""

from __future__ import annotations

import bisect
from array import array

from .. import compiled
from ..diagnostics import LLNoaliasError
from .lazyre import lazy
from .lexer import BARE_NAME, MD_NAME_CHAR, bracket_balance, split_comment
from .model import Function, Module
from .numbering import number_of
from .source import SourceFile

#: the compiled reader (``_body_reader.c``), or None: the Python code here
_cscan = compiled.load("body_reader")

NAME = r'(?:"[^"]*"|' + BARE_NAME + r')'
# A line that can only start a new top-level entity (never continue an open bracket).
_NEW_ENTITY_RE = lazy(r"\s*(?:!" + MD_NAME_CHAR + r"+\s*=|@" + NAME + r"\s*=|(?:define|declare|attributes)\b)")


class Lines:
    """Line start offsets of a text, kept in an array (no copy of the lines themselves:
    a line's text is sliced when it is needed). ``line(j)`` keeps a trailing ``\r``."""

    def __init__(self, text: str) -> None:
        self.text = text
        if _cscan is not None:
            starts = array("q")
            starts.frombytes(_cscan.line_starts(text))
        else:
            starts = array("q", [0])
            append = starts.append
            find = text.find
            pos = find("\n")
            while pos >= 0:
                append(pos + 1)
                pos = find("\n", pos + 1)
        self.starts = starts
        self.n = len(starts)

    def line_of(self, offset: int) -> int:
        """Index of the line that holds ``offset``."""
        return bisect.bisect_right(self.starts, offset) - 1

    def code_end(self, j: int) -> int:
        """Offset just after the code of line ``j`` (before a comment and trailing blanks)."""
        return self.starts[j] + len(split_comment(self.line(j)).rstrip())

    def line(self, j: int) -> str:
        start = self.starts[j]
        end = self.starts[j + 1] - 1 if j + 1 < self.n else len(self.text)
        return self.text[start:end]


def blank_comment(line: str) -> str:
    """``line`` with its comment turned into blanks (same length)."""
    code = split_comment(line)
    return code if len(code) == len(line) else code + " " * (len(line) - len(code))


def entry_number(fn: Function) -> int:
    """The number an unnamed entry block takes: the next after the numbered arguments."""
    nxt = 0
    for a in fn.args:
        name = a.name
        if "0" <= name[1:2] <= "9":  # (a name that is no number is passed over at once)
            number = number_of(name)
            if number >= nxt:
                nxt = number + 1
    return nxt


def error_at(src: SourceFile, offset: int, message: str) -> LLNoaliasError:
    return LLNoaliasError(message, src.location(offset))


class LineReader:
    """What every reader shares: the source, the module being built, its lines, and the
    references to check once the whole module is read."""

    lines: Lines

    def __init__(self, src: SourceFile) -> None:
        self.src = src
        self.mod = Module(src)
        self.pending_global_refs: list[tuple[str, int]] = []
        self.pending_local_refs: list[tuple[str, int]] = []
        self.pending_globals: dict[str, tuple[int, int, str]] = {}
        self.pending_plain: dict[str, list[tuple[int, int]]] = {}
        self.names: dict[str, str] = {}

    def _logical(self, i: int, code: str) -> tuple[str, int]:
        """Join following lines while brackets are open; returns (code, last line index).

        A bracket left open until the end of the file, or until a line that starts a new
        top-level entity, is an error (else it would swallow every line after it, and the
        lines llnoalias appends with them)."""
        lines = self.lines
        bal = bracket_balance(code)
        j = i
        while bal > 0:
            if j + 1 >= lines.n or _NEW_ENTITY_RE.match(lines.line(j + 1)):
                off = self._unclosed(i, j, code.split("\n", 1)[0])
                raise error_at(self.src, off, "unbalanced brackets: a '(', '[' or '{' opened here is never closed")
            j += 1
            more = split_comment(lines.line(j))
            code = code + "\n" + more
            bal += bracket_balance(more)
        return code, j

    def _unclosed(self, i: int, j: int, first: str) -> int:
        """The offset of the outermost bracket that lines ``i``..``j`` leave open (``first``
        is line ``i`` without its comment; strings end at the line's end, as
        ``bracket_balance`` reads them), where the error about it points."""
        lines = self.lines
        stack: list[int] = []
        for k in range(i, j + 1):
            code = first if k == i else split_comment(lines.line(k))
            in_str = False
            for col, ch in enumerate(code):
                if ch == '"':
                    in_str = not in_str
                elif in_str:
                    continue
                elif ch in "([{":
                    stack.append(lines.starts[k] + col)
                elif ch in ")]}" and stack:
                    stack.pop()
        return stack[0] if stack else lines.starts[i] + len(first) - len(first.lstrip())


__all__ = ["NAME", "LineReader", "Lines", "blank_comment", "entry_number", "error_at"]
