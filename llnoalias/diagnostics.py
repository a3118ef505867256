"""Every message llnoalias prints about the user's input is formatted here.

Errors about input text carry a position and are shown as
``llnoalias: FILE:LINE:COL: error: MESSAGE`` followed by the source line and a caret,
the way clang and llc show theirs. Errors without a position (a missing file, an
unwritable directory) are shown as ``llnoalias: error: MESSAGE``.
"""

from __future__ import annotations

import sys

from .plain import ValueRecord

TYPE_CHECKING = False  # ``typing`` is not imported at run time: it costs every start about 5 ms
if TYPE_CHECKING:
    from typing import TextIO

PROG = "llnoalias"

#: Exit status for bad input or a failed run (nothing was written).
EXIT_BAD_INPUT = 2


class Location(ValueRecord):
    """A 1-based line and column in a named input, with the text of that line (not
    changed once made; a plain class: a dataclass costs about 1 ms at every start)."""

    __slots__ = ("path", "line", "col", "source_line")
    _FIELDS = __slots__

    def __init__(self, path: str, line: int, col: int, source_line: str = "") -> None:
        self.path = path
        self.line = line
        self.col = col
        self.source_line = source_line



class LLNoaliasError(Exception):
    """An error that stops the run. ``location`` is set when it is about input text;
    ``notes`` are shown after it, one ``note:`` line each (what each tool that was tried
    said, the names that come close to a misspelt one)."""

    def __init__(self, message: str, location: Location | None = None, exit_code: int = EXIT_BAD_INPUT,
                 notes: tuple[str, ...] | list[str] = ()):
        super().__init__(message)
        self.message = message
        self.location = location
        self.exit_code = exit_code
        self.notes: tuple[str, ...] = tuple(notes)

    def format(self) -> str:
        return format_diagnostic("error", self.message, self.location) + format_notes(self.notes)


#: the most characters of a source line an error shows (the stretch around its column)
SHOWN_WIDTH = 160


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, carried as a lone surrogate
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "?"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _needs_escape(ch: str) -> bool:
    code = ord(ch)
    return (code < 0x20 and ch != "\t") or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF \
        or code in (0x2028, 0x2029, 0xFEFF)


def printable(text: str) -> str:
    """``text`` with nothing a terminal would act on: control characters (an escape
    sequence, a bell, a carriage return, a NUL) and bytes that are not UTF-8 are shown as
    ``\\xNN`` (a tab stays a tab). Binary input never reaches the terminal raw."""
    if text.isprintable() or not any(_needs_escape(ch) for ch in text):
        return text
    return "".join(_escape_char(ch) if _needs_escape(ch) else ch for ch in text)


def _printable(line: str) -> str:
    return printable(line.rstrip("\r\n"))


def format_diagnostic(severity: str, message: str, location: Location | None = None) -> str:
    """Format one diagnostic; ``severity`` is ``error``, ``warning`` or ``note``."""
    message = printable(message)
    if location is None:
        return f"{PROG}: {severity}: {message}\n"
    head = f"{PROG}: {printable(location.path)}:{location.line}:{location.col}: {severity}: {message}\n"
    if not location.source_line:
        return head
    src = location.source_line.rstrip("\r\n")
    at = max(location.col - 1, 0)
    if len(src) > SHOWN_WIDTH:
        # A line of tens of kilobytes (a deeply nested constant, a minified module) is shown
        # as the stretch around the column, marked with '...' where it was cut.
        start = min(max(at - SHOWN_WIDTH // 2, 0), len(src) - SHOWN_WIDTH)
        end = start + SHOWN_WIDTH
        lead = "..." if start > 0 else ""
        src = lead + src[start:end] + ("..." if end < len(src) else "")
        at = at - start + len(lead)
    # Escaped characters are wider than one column: the caret goes under the escaped text.
    # Keep tabs so the caret lines up under the same column on a terminal.
    before = printable(src[:at])
    pad = "".join(ch if ch == "\t" else " " for ch in before)
    return f"{head}{before}{printable(src[at:])}\n{pad}^\n"


def format_notes(notes: tuple[str, ...] | list[str]) -> str:
    """``llnoalias: note: ...`` lines, one per note, each on one line."""
    return "".join(format_diagnostic("note", " ".join(n.split())) for n in notes)


def first_line(text: str, tool: str = "") -> str:
    """The line of a tool's stderr worth a note: the first that says 'error', else the
    first; without the tool's own ``TOOL: error: TOOL:`` prefixes (llc writes
    ``/usr/bin/llc-19: error: /usr/bin/llc-19: <stdin>:3:1: error: ...``)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    line = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    base = tool.rsplit("/", 1)[-1]
    prefixes = [p for p in (f"{tool}: ", f"{base}: ", "error: ") if p.strip(": ")]
    changed = True
    while changed:
        changed = False
        for p in prefixes:
            if line.startswith(p) and len(line) > len(p):
                line = line[len(p):]
                changed = True
    return line


class Policy:
    """What the command line asked of the diagnostics it prints: ``quiet`` (``--quiet``)
    drops every ``note:`` line that is not part of an error; ``werror``
    (``--warnings-as-errors``, ``-Werror``) prints each warning as an ``error:`` and counts it
    in ``promoted``, so that the run fails (exit 2) once its warnings are out."""

    __slots__ = ("quiet", "werror", "promoted")

    def __init__(self) -> None:
        self.quiet = False
        self.werror = False
        self.promoted = 0


POLICY = Policy()


def set_policy(quiet: bool = False, werror: bool = False) -> None:
    POLICY.quiet = quiet
    POLICY.werror = werror
    POLICY.promoted = 0


def emit(severity: str, message: str, location: Location | None = None, stream: TextIO | None = None) -> None:
    """Write one diagnostic to stderr (or ``stream``), as :data:`POLICY` says."""
    if severity == "note" and POLICY.quiet:
        return
    if severity == "warning" and POLICY.werror:
        severity = "error"
        POLICY.promoted += 1
    out = stream if stream is not None else sys.stderr
    out.write(format_diagnostic(severity, message, location))
    out.flush()


def warn(message: str, location: Location | None = None) -> None:
    emit("warning", message, location)


def note(message: str, location: Location | None = None) -> None:
    emit("note", message, location)


def pass_on(tool_stderr: bytes | str) -> None:
    """An external tool's or LLVM's own warnings, on stderr as it wrote them."""
    sys.stderr.flush()
    if isinstance(tool_stderr, str):
        sys.stderr.write(tool_stderr)
        sys.stderr.flush()
    else:
        sys.stderr.buffer.write(tool_stderr)
        sys.stderr.buffer.flush()
