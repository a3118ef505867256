"""Error fixtures: bad input whose expected error is written on the line that fails.

A fixture is ``fixtures/errors/NAME.ll`` holding exactly one marker, in a ``;`` comment
(the format is described in ``fixtures/errors/README.md``)::

    %x = add i32 %y, 1   ; expected-error@16 {{use of undefined value '%y'}}
    ; expected-error@+1:19 {{NUL byte}}         (the error is N lines below: @+N:COL)
    ; expected-error@-2:1 {{...}}               (N lines above: @-N:COL)
    ; expected-no-error                         (the file is read and annotated)
    ; RUN: llnoalias --args noalias --may-alias 0,9 %s    (options, for an error they cause)

``@COL`` is the 1-based column of the error on the marker's own line; the fragment in
``{{...}}`` must occur in the message (it runs to the last ``}}`` on the line, so it may
itself end in ``}``). This module reads the markers and renders what the diagnostic must
look like; ``tests/ir/test_error_fixtures.py`` runs the API and the CLI on every fixture and
compares. A wrong line, column or message shows as a diff of two renderings: the head line
``llnoalias: FILE:LINE:COL: error: MESSAGE``, the source line, and the caret under it.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from llnoalias.diagnostics import SHOWN_WIDTH, Location, format_diagnostic
from llnoalias.fileio import decode
from llnoalias.options import AnnotateOptions

from .files import ROOT

ERRORS_DIR = ROOT / "fixtures" / "errors"

#: anything that looks like a marker, well-formed or not: each must parse as one
_ANY_MARKER = re.compile(r"expected-(?:error|no-error|warning|note)[^\s{]*")
_ERROR = re.compile(r"expected-error@(?:(?P<sign>[+-])(?P<off>[0-9]+):)?(?P<col>[0-9]+)\s+\{\{(?P<frag>.*)\}\}\s*$")
_NO_ERROR = re.compile(r"expected-no-error\s*$")
_RUN = re.compile(r"\s*; RUN:(.*)$")


class FixtureError(Exception):
    """A fixture whose markers cannot be read: none, two, or one that is malformed."""


@dataclass(frozen=True)
class Expected:
    """What one fixture expects: an error at ``line``:``col`` whose message holds
    ``fragment``, or (``line`` is None) no error at all."""

    name: str
    line: int | None
    col: int
    fragment: str
    marker_line: int
    #: the options of the file's ``; RUN: llnoalias OPTIONS %s`` line, if it has one
    args: tuple[str, ...] = ()


def fixture_paths() -> list[Path]:
    return sorted(ERRORS_DIR.glob("*.ll"))


def read_text(path: Path) -> str:
    """The fixture as llnoalias reads it (bytes that are not UTF-8 kept, as the CLI keeps them)."""
    return decode(path.read_bytes())


def source_lines(text: str) -> list[str]:
    """The file's lines as an error shows them: split at '\\n', without the line ending."""
    return [ln.rstrip("\r") for ln in text.split("\n")]


def parse_markers(text: str, name: str) -> Expected:
    """The one expectation of a fixture's text; FixtureError when it has none, two, or a
    marker that does not parse."""
    found: list[Expected] = []
    lines = source_lines(text)
    for lineno, line in enumerate(lines, 1):
        for m in _ANY_MARKER.finditer(line):
            where = f"{name}:{lineno}"
            if ";" not in line[:m.start()]:
                raise FixtureError(f"{where}: a marker must sit in a ';' comment: {line.strip()!r}")
            rest = line[m.start():]
            if (e := _ERROR.match(rest)) is not None:
                frag = e.group("frag").strip()
                if not frag:
                    raise FixtureError(f"{where}: an empty {{{{}}}}: write a fragment of the expected message")
                off = int(e.group("off") or 0) * (-1 if e.group("sign") == "-" else 1)
                target = lineno + off
                if not 1 <= target <= len(lines):
                    raise FixtureError(f"{where}: the marker points at line {target}, outside the file")
                found.append(Expected(name, target, int(e.group("col")), frag, lineno))
            elif _NO_ERROR.match(rest):
                found.append(Expected(name, None, 0, "", lineno))
            else:
                raise FixtureError(f"{where}: a malformed marker {rest.strip()!r}; write "
                                   "'expected-error@COL {{fragment}}', 'expected-error@+N:COL {{fragment}}' "
                                   "(or @-N:COL) or 'expected-no-error'")
    if len(found) != 1:
        at = ", ".join(f"line {e.marker_line}" for e in found) or "none"
        raise FixtureError(f"{name}: {len(found)} markers ({at}); an error fixture holds exactly one "
                           "(llnoalias stops at the first error)")
    runs = [shlex.split(m.group(1)) for ln in lines if (m := _RUN.match(ln))]
    if not runs:
        return found[0]
    words = runs[0]
    if len(runs) > 1 or len(words) < 2 or words[0] != "llnoalias" or words[-1] != "%s" or "%s" in words[1:-1]:
        raise FixtureError(f"{name}: at most one '; RUN: llnoalias OPTIONS %s' line, the input last")
    e = found[0]
    return Expected(e.name, e.line, e.col, e.fragment, e.marker_line, tuple(words[1:-1]))


def expected_of(path: Path) -> Expected:
    return parse_markers(read_text(path), path.name)


def render(path: str, line: int, col: int, message: str, text: str) -> str:
    """The first three lines of the diagnostic for an error at ``line``:``col`` of ``text``:
    the head, the source line, the caret. Written out here rather than taken from
    llnoalias, so that a caret in the wrong place fails; a line longer than llnoalias
    shows whole is cut by its own rule (tested in test_bad_input.py)."""
    lines = source_lines(text)
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    head = f"llnoalias: {path}:{line}:{col}: error: {message}"
    if len(src) > SHOWN_WIDTH:
        return format_diagnostic("error", message, Location(path, line, col, src)).rstrip("\n")
    # nothing raw reaches the terminal: a control character or a byte that is not UTF-8
    # (a lone surrogate here) is shown as \xNN, and the caret goes under the shown text
    def shown(part: str) -> str:
        out = []
        for ch in part:
            code = ord(ch)
            if 0xDC80 <= code <= 0xDCFF:
                out.append(f"\\x{code - 0xDC00:02x}")
            elif (code < 32 and ch != "\t") or 0x7F <= code <= 0x9F:
                out.append(f"\\x{code:02x}")
            elif ch == "\ufeff":  # a byte order mark, invisible on a terminal
                out.append("\\ufeff")
            else:
                out.append(ch)
        return "".join(out)
    before = shown(src[:max(col - 1, 0)])
    pad = "".join(ch if ch == "\t" else " " for ch in before)
    return f"{head}\n{before}{shown(src[max(col - 1, 0):])}\n{pad}^"


def want_rendering(exp: Expected, path: str, message: str, text: str) -> str:
    """The rendering the marker asks for. The message is the one llnoalias gave when it
    holds the fragment (so only line and column can differ), else the fragment in braces."""
    assert exp.line is not None
    shown = message if exp.fragment in message else "{{" + exp.fragment + "}}"
    return render(path, exp.line, exp.col, shown, text)


def head_block(stderr: str, path: str) -> str | None:
    """The head, source and caret lines of the first error that ``stderr`` gives for
    ``path``, or None."""
    lines = stderr.split("\n")
    prefix = f"llnoalias: {path}:"
    for k, ln in enumerate(lines):
        if ln.startswith(prefix) and ": error: " in ln:
            return "\n".join(lines[k:k + 3])
    return None


def message_of(block: str) -> str:
    head = block.split("\n", 1)[0]
    return head.split(": error: ", 1)[1]


def api_options(args: tuple[str, ...]) -> AnnotateOptions:
    """The options a RUN line's arguments give, read by the CLI's own option parser."""
    import click

    from llnoalias.cli.options import annotate_options, options_from_kwargs

    @click.command()
    @annotate_options
    def read(**kwargs: object) -> AnnotateOptions:
        return options_from_kwargs(kwargs)

    got = read.main(list(args), standalone_mode=False)
    assert isinstance(got, AnnotateOptions)
    return got


def relpath(path: Path) -> str:
    return os.path.relpath(path, ROOT)
