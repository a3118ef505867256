"""The function headers a parse reads, as plain data, with the header reader's fast path
on or off (``test_scanner_paths``, ``test_perf_paths``)."""

from __future__ import annotations

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.switches import switch_shortcut


def header_shape(fn: object) -> tuple[object, ...]:
    f = fn  # a Function
    return (f.name, f.cc, f.is_kernel, f.header_end, f.fn_attr_groups, f.fn_attrs_inline,  # type: ignore[attr-defined]
            f.own_attrs_text, f.header_text,  # type: ignore[attr-defined]
            [(a.name, a.index, repr(a.type), sorted(a.attrs), a.insert_at, a.named)
             for a in f.args])  # type: ignore[attr-defined]


def parse_headers(text: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[object] | str:
    with monkeypatch.context() as m:
        if not fast:
            switch_shortcut(m, "header-fast", False)
        try:
            mod = parse_module(SourceFile("in.ll", text))
        except LLNoaliasError as e:
            return e.format()
    return [header_shape(fn) for fn in mod.functions]
