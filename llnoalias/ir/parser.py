"""The module scanner: one pass over the lines builds the ``Module``.

It checks the structure llnoalias relies on (balanced function bodies, no instruction
outside a function, every ``%value`` and ``@symbol`` used is defined, no value defined
twice) and reports the first violation as ``FILE:LINE:COL: error:``. Everything inside an
instruction beyond its result name and opcode is left for ``operands.parse``: an
instruction llnoalias does not understand is never an error.

The reader is four layers, one module each: ``lines`` (line offsets, logical lines),
``header_reader`` (a ``define`` line), ``body_reader`` (the instructions of a body) and
``toplevel_reader`` (globals, declarations, metadata, attribute groups). ``parse_module``
runs them over a whole text.
"""

from __future__ import annotations

from .. import shortcuts
from ..diagnostics import LLNoaliasError
from .lazyre import lazy
from .limits import first_hostile
from .lines import Lines, error_at
from .model import Module
from .source import BOM, SourceFile
from .toplevel_reader import BodyMismatch, TopLevelReader

__all__ = ["BodyMismatch", "DeferredBodies", "parse_module", "parse_module_deferred"]


def parse_module(src: SourceFile) -> Module:
    return _ModuleParser(src).run()


def parse_module_deferred(src: SourceFile) -> tuple[Module, DeferredBodies]:
    """``parse_module`` that leaves the function bodies unread: each is read when something
    first asks for it (``Function.instrs``), so that processes that analyse parts of a
    large module side by side each read only the bodies they use. A body read later may
    raise ``LLNoaliasError`` (what the one-pass parse would have found first may lie
    elsewhere: read the module with ``parse_module`` to say), or ``BodyMismatch`` when it
    ends elsewhere than the top-level pass found. ``DeferredBodies.check`` finishes what
    ``parse_module`` checks once every body has been read (here or in another process)."""
    reader = _ModuleParser(src)
    reader.defer = True
    mod = reader.run()
    return mod, DeferredBodies(reader)


#: the references a reader still has to check, as plain data (``DeferredBodies.refs``)
Refs = tuple[list[tuple[str, int]], list[tuple[str, int]], dict[str, tuple[int, int, str]],
             dict[str, list[tuple[int, int]]]]


class DeferredBodies:
    """The reader of a deferred parse: what the bodies read so far still have to check."""

    def __init__(self, reader: _ModuleParser) -> None:
        self._reader = reader
        #: the functions whose bodies another process read and sent the references of
        self.read_elsewhere: set[str] = set()
        self.checked = False

    def refs(self) -> Refs:
        r = self._reader
        return r.pending_global_refs, r.pending_local_refs, r.pending_globals, r.pending_plain

    def add_refs(self, refs: Refs) -> None:
        """Take the references of bodies another process read (``refs()`` there)."""
        r = self._reader
        global_refs, local_refs, globals_, plain = refs
        r.pending_global_refs.extend(global_refs)
        r.pending_local_refs.extend(local_refs)
        for name, span in globals_.items():
            seen = r.pending_globals.get(name)
            if seen is None or span[0] < seen[0]:  # the first body that uses it
                r.pending_globals[name] = span
        for name, spans in plain.items():
            r.pending_plain.setdefault(name, []).extend(spans)

    def check(self) -> None:
        """Read every body no other process read, then check what ``parse_module`` checks
        at its end: every reference of every body is defined (raises ``LLNoaliasError``,
        or ``BodyMismatch``). Once is enough."""
        if self.checked:
            return
        for fn in self._reader.mod.functions:
            if fn.body_pending and fn.name not in self.read_elsewhere:
                fn.instrs  # noqa: B018 - reads the body
        self._reader._resolve_pending()
        self.checked = True


#: a string to its quote or its line's end, or a comment to its line's end
_STRING_OR_COMMENT = lazy(r'"[^"\n]*"?|;[^\n]*')
_LONE_CR = lazy(r"\r(?!\n)")


def _in_comment(text: str, offset: int) -> bool | None:
    """Is ``offset`` in a comment (True), in a string (None) or in code (False)?"""
    start = text.rfind("\n", 0, offset) + 1
    for m in _STRING_OR_COMMENT.finditer(text, start, offset + 1):
        if m.start() <= offset < m.end():
            return True if text[m.start()] == ";" else None
    return False


def _nul_outside_comments(text: str) -> int | None:
    """The first NUL byte outside a comment (LLVM's lexer skips a comment's bytes to the line's
    end, a NUL among them; anywhere else a NUL is no LLVM IR), or None."""
    at = text.find("\x00")
    while at >= 0:
        if not _in_comment(text, at):
            return at
        at = text.find("\x00", text.find("\n", at) + 1 or len(text))
    return None


def _lone_cr(text: str) -> int | None:
    """The first carriage return not followed by a line feed outside a string: LLVM ends a
    line (a comment) there, llnoalias does not, so the two would read different modules."""
    for m in _LONE_CR.finditer(text):
        if _in_comment(text, m.start()) is not None:
            return m.start()
    return None


#: what may follow the word ``define`` for ``_top_level`` to read it as that word (its
#: ``[a-z_]+`` does not go on); with the ``define-line`` shortcut off, nothing: every line
#: goes to ``_top_level``
_AFTER_DEFINE = frozenset(" \t\r")


class _ModuleParser(TopLevelReader):
    # ---------------------------------------------------------------- entry
    def run(self) -> Module:
        text = self.src.text
        if text.startswith("BC\xc0\xde") or text.startswith("\x42\x43\udcc0\udcde"):
            raise LLNoaliasError(f"{self.src.path}: this is LLVM bitcode; llnoalias reads textual IR "
                                 "(run llvm-dis first)")
        if text.startswith(BOM):
            raise error_at(self.src, 0, "a UTF-8 byte order mark: LLVM does not read it ('expected top-level "
                           "entity'); remove the first three bytes (EF BB BF)")
        if "\x00" in text:
            nul = _nul_outside_comments(text)
            if nul is not None:
                raise error_at(self.src, nul, "unexpected NUL byte: this is not textual LLVM IR")
        if "\r" in text:
            cr = _lone_cr(text)
            if cr is not None:
                raise error_at(self.src, cr, "a carriage return without a line feed: LLVM reads it as a line "
                               "break, llnoalias reads lines ended by LF or CR LF (convert the file: tr '\\r' "
                               "'\\n')")
        lines = Lines(text)
        self.lines = lines
        self.src.adopt_line_starts(lines.starts)
        n = lines.n
        starts = lines.starts
        function = self._function
        after_define = _AFTER_DEFINE if shortcuts.ON["define-line"] else frozenset()
        i = 0
        while i < n:
            start = starts[i]
            raw = text[start:starts[i + 1] - 1] if i + 1 < n else text[start:]  # (``lines.line(i)``)
            if raw.startswith("define") and raw[6:7] in after_define:
                # a definition at the line's start: what ``_top_level`` finds for it (the word
                # ``define`` alone, nothing before it to strip)
                i = function(i, raw, start, start)
                continue
            stripped = raw.strip()
            if not stripped or stripped[0] == ";":
                i += 1
                continue
            i = self._top_level(i, raw, start)
        hostile = first_hostile(text)
        if hostile is not None:
            raise error_at(self.src, *hostile)
        self._resolve_pending()
        self._find_kernels()
        self._max_metadata_id()
        return self.mod

