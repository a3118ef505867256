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

from ..diagnostics import LLNoaliasError
from .lines import Lines, error_at
from .model import Module
from .source import BOM, SourceFile
from .toplevel_reader import TopLevelReader


def parse_module(src: SourceFile) -> Module:
    return _ModuleParser(src).run()


class _ModuleParser(TopLevelReader):
    # ---------------------------------------------------------------- entry
    def run(self) -> Module:
        text = self.src.text
        if text.startswith("BC\xc0\xde") or text.startswith("\x42\x43\udcc0\udcde"):
            raise LLNoaliasError(f"{self.src.path}: this is LLVM bitcode; llnoalias reads textual IR "
                                 "(run llvm-dis first)")
        if "\x00" in text:
            raise error_at(self.src, text.index("\x00"), "unexpected NUL byte: this is not textual LLVM IR")
        lines = Lines(text)
        self.lines = lines
        self.src.adopt_line_starts(lines.starts)
        n = lines.n
        i = 0
        while i < n:
            raw = lines.line(i)
            start = lines.starts[i]
            if i == 0 and raw.startswith(BOM):
                raw = raw[1:]
                start += 1
            stripped = raw.strip()
            if not stripped or stripped[0] == ";":
                i += 1
                continue
            i = self._top_level(i, raw, start)
        self._resolve_pending()
        self._find_kernels()
        self._max_metadata_id()
        return self.mod



__all__ = ["parse_module"]
