"""Shortcuts for the fixed cost of a small function must give what the long way gives:
headers read from the memo of texts seen before (``header_reader._PARAMS_SEEN`` ...)
against a fresh reading and the tokenizer, on headers that share texts; the report's
records against one reading per decision; the scope writer past its memos' bounds. (On
fixtures, the header-memo and scope-writer rows of tests/support/fast_paths.py.)"""

from __future__ import annotations

import pytest

import llnoalias
from llnoalias.diagnostics import LLNoaliasError
from llnoalias.fileio import decode
from llnoalias.ir import header_reader
from llnoalias.transform import pipeline
from tests.support.files import all_fixtures, fixture_id
from tests.support.headers import header_shape as _header_shape
from tests.support.headers import parse_headers as _parse_headers
from tests.support.switches import switch_shortcut

PATHS = all_fixtures()


def _forget() -> None:
    header_reader._PARAMS_SEEN.clear()
    header_reader._PRE_SEEN.clear()
    header_reader._TAIL_SEEN.clear()
    header_reader._PIECES_SEEN.clear()


def _module_of(heads: list[str]) -> str:
    """A module of each header in ``heads`` three times (``{n}``: 0, 1, 2), each with an empty body."""
    return 'target triple = "amdgcn-amd-amdhsa"\n' + "".join(
        h.format(n=n) + " {\n  ret void\n}\n" for n in range(3) for h in heads)


def test_one_signature_many_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same parameter text at other offsets, after other names and before other
    attributes: the remembered reading is placed where each one is."""
    heads = [
        "define amdgpu_kernel void @k{n}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b)",
        "define void @longer_name_{n}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) #0",
        "define   amdgpu_kernel void @k{n}x(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) #1 align 4",
        "define internal fastcc void @k{n}y(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b)",
        "define void @e{n}()",
    ]
    text = _module_of(heads)
    _forget()
    fast = _parse_headers(text, True, monkeypatch)
    slow = _parse_headers(text, False, monkeypatch)
    assert isinstance(fast, list) and fast == slow
    # one reading, placed at each: the same arguments, each at its own offset
    first, again = fast[0][-1], fast[5][-1]  # type: ignore[index]
    assert [a[:4] for a in first] == [a[:4] for a in again]
    assert [a[4] for a in first] != [a[4] for a in again]


def test_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(header_reader, "_SEEN_LIMIT", 4)
    _forget()
    text = 'target triple = "amdgcn-amd-amdhsa"\n' + "".join(
        f"define void @k{n}(ptr %p{n}) #{n} {{\n  ret void\n}}\n" for n in range(10))
    fast = _parse_headers(text, True, monkeypatch)
    slow = _parse_headers(text, False, monkeypatch)
    assert fast == slow
    assert len(header_reader._PARAMS_SEEN) <= 4 and len(header_reader._TAIL_SEEN) <= 4
    assert _header_shape  # the shape compared is the scanner test's


def test_parameters_seen_before_but_for_their_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each parameter's type and attributes read once per text before its name
    (``_PIECES_SEEN``): headers of distinct parameter lists that share parameters give what
    a fresh reading gives, each name and offset its own; a text after the name that is not a
    plain name (a second '%') is read the long way."""
    heads = [
        "define amdgpu_kernel void @k{n}(ptr addrspace(1) noalias %a{n}, i32 %n{n}, float %f)",
        "define void @g{n}(i32 %n{n}, ptr addrspace(1) noalias  %b.{n}, <4 x float> %v)",
        "define void @h{n}(ptr addrspace(1) noalias %c{n}  , i32 %n{n} )",
        "define void @bad{n}(ptr addrspace(1) noalias %c{n} %d)",
        "define void @j{n}(ptr addrspace(1) noalias %$e{n}, ptr addrspace(1) noalias %-{n})",
    ]
    text = _module_of(heads)
    _forget()
    fast = _parse_headers(text, True, monkeypatch)
    assert header_reader._PIECES_SEEN  # filled: the later headers read their parameters from it
    slow = _parse_headers(text, False, monkeypatch)
    assert fast == slow
    _forget()
    monkeypatch.setattr(header_reader, "_PIECES_SEEN", {})
    assert _parse_headers(text, True, monkeypatch) == slow


CONFIGS = [{}, {"lds": "all", "args": "noalias"}, {"lds": "all", "args": "noalias", "regions": False}]


def _annotated(path: str, options: dict[str, object]) -> str:
    text = decode(open(path, "rb").read())
    try:
        return llnoalias.annotate(text, path="in.ll", **options).text  # type: ignore[arg-type]
    except LLNoaliasError as e:
        return "error: " + e.format()


SCOPED = [p for p in PATHS if "define" in decode(open(p, "rb").read())]


def _records_the_long_way(mod: object, p: object) -> list[object]:
    """``_report``'s access records as it made them before it shared an instruction's
    reading between its decisions and counted lines on: one reading per decision."""
    from llnoalias.ir.lexer import split_comment
    from llnoalias.report.record import AccessRecord
    from llnoalias.transform.regions import range_note

    out: list[object] = []
    text = mod.text  # type: ignore[attr-defined]
    for d in p.decisions:  # type: ignore[attr-defined]
        inst = d.access.inst
        line_text = text[inst.start:inst.end]
        code = split_comment(line_text).strip()
        col = len(line_text) - len(line_text.lstrip()) + 1
        m = pipeline._DBG_RE.search(line_text)
        out.append(AccessRecord(
            inst.function.name, inst.line, col, d.access.intrinsic or d.access.kind,
            code if len(code) <= 160 else code[:157] + "...",
            d.domain, bool(d.keys), [k.name for k in d.keys],
            "" if d.keys else (f"{d.reason} ({d.blocker})" if d.blocker else d.reason),
            int(m.group(1)) if m else None, range_note(d),
            rule="" if d.keys else d.reason, blocker="" if d.keys else d.blocker))
    return out


@pytest.mark.parametrize("path", SCOPED, ids=[fixture_id(p) for p in SCOPED])
def test_report_records_agree(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_report``'s records, made once per instruction with lines counted on, are the
    records made one decision at a time with ``Instruction.line``."""
    real = pipeline._report
    seen: list[tuple[list[object], list[object]]] = []

    def spy(mod, p, roots, ma):  # type: ignore[no-untyped-def]
        rep = real(mod, p, roots, ma)
        seen.append((list(rep.accesses), _records_the_long_way(mod, p)))
        return rep

    monkeypatch.setattr(pipeline, "_report", spy)
    for options in CONFIGS:
        _annotated(path, options)
    for fast, slow in seen:
        assert fast == slow


def test_many_kernels_past_the_memo_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """More kernels than the scope writer's memos and batches hold (4096): each access
    still gets its own kernel's scopes, each list is written once, and the long way
    writes the same text."""
    import re
    import sys

    sys.path.insert(0, "scripts")
    from bench_throughput import build_small

    n = 2100  # 4200 accesses and keys, past the bounds of 4096
    text = build_small(n)
    out = llnoalias.annotate(text).text
    nodes = dict(re.findall(r"^!(\d+) = (.*)$", out, re.M))
    scope_of = {sid: (m.group(1), m.group(2)) for sid, body in nodes.items()
                if (m := re.fullmatch(r'distinct !\{!\d+, !(\d+), !"(\w+)"\}', body))}
    domain_of = {did: m.group(1) for did, body in nodes.items()
                 if (m := re.fullmatch(r'distinct !\{!\d+, !"([\w.]+)"\}', body))}
    lists = [body for body in nodes.values() if re.fullmatch(r"!\{(!\d+(, !\d+)*)?\}", body)]
    assert len(lists) == len(set(lists))

    def names(lid: str) -> list[tuple[str, str]]:
        ids = re.findall(r"!(\d+)", nodes[lid])
        return [(domain_of[scope_of[i][0]], scope_of[i][1]) for i in ids]

    kernels = re.findall(r"define [^@]*@(k\d+)\(.*\n(.*)\n(.*)\n", out)
    assert len(kernels) == n
    for name, load, store in kernels:
        lm = re.search(r"!alias.scope !(\d+), !noalias !(\d+)", load)
        sm = re.search(r"!alias.scope !(\d+), !noalias !(\d+)", store)
        assert lm and sm
        domain = f"llnoalias.args.{name}"
        assert names(lm.group(1)) == [(domain, "a")] and names(lm.group(2)) == [(domain, "b")]
        assert names(sm.group(1)) == [(domain, "b")] and names(sm.group(2)) == [(domain, "a")]
    with monkeypatch.context() as m:
        switch_shortcut(m, "scope-writer", False)
        assert llnoalias.annotate(text).text == out


@pytest.mark.parametrize("path", SCOPED, ids=[fixture_id(p) for p in SCOPED])
def test_effects_line_shortcut_agrees(path: str) -> None:
    """``analyse_effects`` finds an instruction's line with one bisect of the source's
    line starts: that is ``Instruction.line``, for every instruction of every fixture."""
    from bisect import bisect_right

    from llnoalias.ir.parser import parse_module
    from llnoalias.ir.source import SourceFile

    try:
        mod = parse_module(SourceFile("in.ll", decode(open(path, "rb").read())))
    except LLNoaliasError:
        return
    for fn in mod.functions:
        assert fn.source is not None
        starts = fn.source.line_starts
        text = fn.source.text
        counted = [text.count("\n", 0, i.start) + 1 for i in fn.instrs]  # the long way
        assert [bisect_right(starts, i.start) for i in fn.instrs] == counted == [i.line for i in fn.instrs]
