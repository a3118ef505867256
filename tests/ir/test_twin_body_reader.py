"""The compiled reader (llnoalias/ir/_body_reader.c) and the pure-Python one give the same model
on every fixture and corpus file: line starts, blocks, and every instruction's span, name,
opcode and operands as the analysis reads them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llnoalias
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir import lines
from llnoalias.ir import operands as opparse
from llnoalias.ir.editor import Editor
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from tests.support.files import DATA, ROOT
from tests.support.run import assert_pure_mode
from tests.support.switches import switch_twin, twin

FILES = sorted({*ROOT.glob("fixtures/**/*.ll"), *DATA.glob("**/*.ll")})

needs_cscan = pytest.mark.skipif(twin("body_reader") is None, reason="the compiled reader is not built here")


def _read(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _plain(obj: Any, depth: int = 0) -> Any:
    """A value of the model as plain data (its class and fields), to compare two models."""
    if depth > 12 or obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [_plain(x, depth + 1) for x in obj]
    if isinstance(obj, dict):
        return {k: _plain(v, depth + 1) for k, v in obj.items()}
    fields: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name) and name not in ("function", "ops"):
                fields[name] = getattr(obj, name)
    fields.update(getattr(obj, "__dict__", {}))
    return (type(obj).__name__, {k: _plain(v, depth + 1) for k, v in sorted(fields.items())})


def _model(text: str, path: str) -> Any:
    try:
        mod = parse_module(SourceFile(path, text))
    except LLNoaliasError as exc:
        return ("error", exc.format())
    out: list[Any] = [list(lines.Lines(text).starts)]
    for fn in mod.functions:
        insts = []
        for inst in fn.instrs:
            ops = opparse.parse(mod, inst)
            insts.append((inst.name, inst.opcode, inst.start, inst.end, inst.opstart, _plain(ops)))
        out.append((fn.name, fn.blocks, fn.block_offsets, sorted(fn.by_name), insts))
    return out


@needs_cscan
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_compiled_and_pure_readers_give_the_same_model(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _read(path)
    compiled = _model(text, str(path))
    switch_twin(monkeypatch, "body_reader", None)
    assert _model(text, str(path)) == compiled


@needs_cscan
@pytest.mark.parametrize("text", [
    "", "\n", "a\nb", "%x = add i32 1, 2\n", "  %x=  tail   call void @f()\r\n", "  tail call void @f(\n",
    "x: ; c\n", "  %\"q\" = load i32, ptr %p\n", "  #dbg_value(i32 0)\n", "  ret void ; done\n",
    "  define void\n", "  xdeclare\n", "  notail\n", "  musttail %x\n", "\u00e9 %a@b %c.d @\"e\" %\n",
    # two- and four-byte strings: line_starts reads them a code point at a time, not with memchr
    "; \u4e2d\n  %x = add i32 1, 2\n\n", "; \U0001f600\r\n\n  ret void",
])
def test_rows_and_refs_on_odd_lines(text: str) -> None:
    cscan = twin("body_reader")
    assert cscan is not None
    body = text if text.endswith("\n") else text + "\n"
    refs = set(re.findall(r"[%@][-a-zA-Z$._0-9]+", body))
    defined = {"%x", "%a", "@f"}
    undefined = cscan.undefined_refs(body, 0, len(body), defined)
    assert undefined == (None if '%"' in body or '@"' in body else refs - defined)
    assert bytes(cscan.line_starts(text)) == bytes(lines.array("q", [0] + [m.end() for m in re.finditer("\n", text)]))


def test_pure_mode_loads_no_extension() -> None:
    code = ("import sys, llnoalias.ir.lines as n, llnoalias.ir.body_reader\n"
            "assert n._cscan is None and 'llnoalias.ir._body_reader' not in sys.modules\n")
    assert_pure_mode(code)


_NAME_CHARS = "ab.-$_09\u00e9"


@pytest.mark.slow
@needs_cscan
@given(names=st.lists(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=4), max_size=60),
       defined_idx=st.lists(st.integers(0, 59), max_size=60),
       extra=st.lists(st.text(alphabet=_NAME_CHARS + "%@", max_size=5), max_size=8),
       sep=st.sampled_from([" ", ", ", "\n", "(", "\u00e9 "]))
@settings(max_examples=300, deadline=None)
def test_undefined_refs_matches_the_regex(names: list[str], defined_idx: list[int], extra: list[str],
                                          sep: str) -> None:
    """The compiled lookup of defined names (a table over their code points, no str per
    reference) finds exactly the references the regex finds, less the defined ones: many
    names (the table's probing), prefixes of one another, non-ASCII names (never matched),
    and a defined set holding something that is not a str (the set's own lookup)."""
    cscan = twin("body_reader")
    assert cscan is not None
    refs = [("%" if i % 3 else "@") + n for i, n in enumerate(names)]
    body = sep.join(refs + extra) + "\n"
    defined: set[Any] = {refs[i] for i in defined_idx if i < len(refs)} | {"%\u00e9x", "@"}
    want = None if '%"' in body or '@"' in body else set(re.findall(r"[%@][-a-zA-Z$._0-9]+", body)) - defined
    assert cscan.undefined_refs(body, 0, len(body), defined) == want
    assert cscan.undefined_refs(body, 0, len(body), defined | {7}) == want


# ------------------------------------------------------------------ splice (Editor.encoded)

def _chunks_encoded(ed: Editor) -> bytes:
    return "".join(Editor.chunks(ed)).encode("utf-8", "surrogateescape")


@needs_cscan
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_spliced_output_is_the_chunks_encoded(path: Path) -> None:
    """On every fixture and corpus file, under two option sets: the compiled splice gives
    the bytes ``chunks`` gives, or None where the text is not ASCII."""
    text = _read(path)
    for kw in ({}, {"lds": "all", "args": "noalias"}):
        try:
            result = llnoalias.annotate(text, path=str(path), **kw)  # type: ignore[arg-type]
        except LLNoaliasError:
            return
        ed = result._editor
        if ed is None or not ed.changed:
            continue
        got = ed.encoded()
        if not text.isascii():
            assert got is None
            continue
        assert got == _chunks_encoded(ed)
        assert result.text.encode() == got  # render() goes through it too


@needs_cscan
def test_splice_orders_edits_as_the_stable_sort_does_and_falls_back_where_it_must() -> None:
    ed = Editor(SourceFile("<t>", "0123456789\n"))
    # made out of order; equal places keep the order they were made in; order breaks ties
    ed.insert(5, "b")
    ed.insert(2, "x", order=1)
    ed.insert(5, "a", order=-1)
    ed.insert(2, "w")
    ed.replace(7, 9, "R")
    ed.insert(5, "c")
    ed.insert(11, "E")
    ed.append_line("!0 = !{}")
    got = ed.encoded()
    assert got == b"01wx234abc56R9\nE!0 = !{}\n"
    assert got == _chunks_encoded(ed)
    for text, new in (("caf\u00e9\n", "x"), ("abc\n", "\u00e9"), ("abc\n", "\udcff")):
        other = Editor(SourceFile("<t>", text))
        other.insert(1, new)
        assert other.encoded() is None
    tail = Editor(SourceFile("<t>", "abc\n"))
    tail.append_line('!1 = !{!"\u00e9"}')  # a non-ASCII appended line: Python writes it
    assert tail.encoded() is None
    overlap = Editor(SourceFile("<t>", "abcdef\n"))
    overlap.replace(1, 4, "X")
    overlap.insert(2, "Y")
    with pytest.raises(AssertionError, match="overlapping edits at offset 2"):
        overlap.encoded()
    with pytest.raises(AssertionError, match="overlapping edits at offset 2"):
        list(overlap.chunks())
    unchanged = Editor(SourceFile("<t>", "abc\n"))
    assert unchanged.encoded() is None and unchanged.render() == "abc\n"

