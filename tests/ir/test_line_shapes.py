"""``TopLevelReader._add_shaped`` reads a define line whose text but for its name was read
before in the module from what that line gave (``HeaderReader.line_shapes``), and its body by
``BodyReader._body_plain``: every function must be the one the full reading gives, and a line
the memo must not serve (another name shape, a comment, a body that needs the line-by-line
scanner, a redefinition) must be read, or refused, as without it."""

from __future__ import annotations

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir.model import Function, Module
from llnoalias.ir.parser import parse_module, parse_module_deferred
from llnoalias.ir.source import SourceFile
from tests.support.switches import switch_shortcut, switch_twin

_BODIES = [
    "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void\n",
    # unnamed values and blocks: numbered after the numbered arguments
    "  load i32, ptr addrspace(1) %a\n  %9 = add i32 0, 1\n  br label %11\n11:\n  ret void\n",
    # a debug record and a continued line: the compiled loop stops there
    "  %x = load i32, ptr addrspace(1) %a\n    #dbg_value(i32 %x, !1, !DIExpression(), !2)\n"
    "  %y = add i32 %x,\n     1\n  ret void\n",
    "",
]
_HEADERS = [
    "define amdgpu_kernel void @k{}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {{",
    "define void @f{}(ptr addrspace(1) %a, i32 %3, ptr %b) #0 {{  ",
    "define internal fastcc i32 @g.{}(ptr addrspace(1) %a, ptr addrspace(1) %b) local_unnamed_addr {{",
]


def _text(header: str, body: str, names: list[str]) -> str:
    return "".join(f"{header.format(n)}\n{body}}}\n\n" for n in names) + "attributes #0 = { nounwind }\n"


def _model(mod: Module) -> list[object]:
    def one(fn: Function) -> tuple[object, ...]:
        return (fn.name, fn.line, fn.start, fn.cc, [(a.name, a.index, str(a.type), sorted(a.attrs), a.insert_at,
                                                    a.named) for a in fn.args],
                fn.header_end, fn.fn_attr_groups, fn.fn_attrs_inline, fn.is_kernel, fn.header_text,
                fn.own_attrs_text, fn.blocks, fn.block_offsets,
                [(i.name, i.opcode, i.start, i.end, i.opstart) for i in fn.instrs])
    return [one(fn) for fn in mod.functions]


def _unshaped(m: pytest.MonkeyPatch) -> None:
    switch_shortcut(m, "line-shapes", False)


def _outcome(text: str, deferred: bool = False) -> object:
    try:
        if deferred:
            mod, bodies = parse_module_deferred(SourceFile("m.ll", text))
            bodies.check()
        else:
            mod = parse_module(SourceFile("m.ll", text))
    except LLNoaliasError as e:
        return ("error", e.format())
    return _model(mod)


@pytest.mark.parametrize("header", _HEADERS)
@pytest.mark.parametrize("body", _BODIES)
@pytest.mark.parametrize("deferred", [False, True])
def test_shaped_lines_give_what_the_full_reading_gives(header: str, body: str, deferred: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text = _text(header, body, ["1", "2", "x_y", "33333"])
    got = _outcome(text, deferred)
    with monkeypatch.context() as m:
        _unshaped(m)
        want = _outcome(text, deferred)
    assert got == want
    assert isinstance(got, list) and len(got) == 4


def test_the_memo_serves_the_repeated_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _text(_HEADERS[0], _BODIES[0], ["1", "2", "3"])
    mod = parse_module(SourceFile("m.ll", text))
    # the first line is read in full; the others share what it gave (their arguments' shape)
    assert mod.functions[0].arg_shape is None
    assert mod.functions[1].arg_shape is not None
    assert mod.functions[1].arg_shape is mod.functions[2].arg_shape


@pytest.mark.parametrize("second", [
    '@"k 2"',  # a quoted name: the pattern refuses it, and so must the memo
    "@2k",
    "@k1",  # a redefinition
])
def test_a_name_the_memo_must_not_serve(second: str, monkeypatch: pytest.MonkeyPatch) -> None:
    header = _HEADERS[0]
    text = _text(header, _BODIES[0], ["1"]) + header.format("X").replace("@kX", second) + "\n" + _BODIES[0] + "}\n"
    got = _outcome(text)
    with monkeypatch.context() as m:
        _unshaped(m)
        want = _outcome(text)
    assert got == want


@pytest.mark.parametrize("body", [
    "  %a = load i32, ptr addrspace(1) %b\n  ret void\n",  # a name defined twice
    "  %x = load i32, ptr addrspace(1) %nope\n  ret void\n",  # an undefined value
    "  %x = load i32, ptr addrspace(1) @nope\n  ret void\n",  # an undefined global
    "  %x = load i32, ptr addrspace(1) %a ; a comment\n  ret void\n",
])
@pytest.mark.parametrize("compiled", [True, False])
def test_bodies_the_plain_call_leaves(body: str, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not compiled:
        switch_twin(monkeypatch, "body_reader", None, only=("llnoalias.ir.body_reader",))
    text = _text(_HEADERS[0], _BODIES[0], ["1"]) + _text(_HEADERS[0], body, ["2"])
    got = _outcome(text)
    with monkeypatch.context() as m:
        _unshaped(m)
        want = _outcome(text)
    assert got == want
