"""Functions made from a template (``ir.kernel_copy``): the compiled ``kernels_copy`` and its
reference ``copy_kernels`` make what the reader makes without them, slot for slot, in one
pass and in a deferred one, and they leave every line they do not take (another body, a
comment after the '}', a name met before...) to the reader, which reports what it always did."""

from __future__ import annotations

from typing import Any

import pytest

from llnoalias.diagnostics import LLNoaliasError
from llnoalias.ir import header_reader, kernel_copy, lines, parser, toplevel_reader
from llnoalias.ir.kernel_copy import ARGUMENT_SLOTS, FUNCTION_SLOTS
from llnoalias.ir.model import Argument, Function, Module
from llnoalias.ir.parser import parse_module, parse_module_deferred
from llnoalias.ir.source import SourceFile

needs_cscan = pytest.mark.skipif(lines.cscan is None, reason="the compiled reader is not built here")

HEAD = "define amdgpu_kernel void @{}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {{\n"
BODY = "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void\n"
OTHER = "  %y = load i32, ptr addrspace(1) %b, align 4\n  store i32 %y, ptr addrspace(1) %a, align 4\n  ret void\n"
BLOCKS = "  br label %next\nnext:\n  %x = load i32, ptr addrspace(1) %a, align 4\n  br label %1\n1:\n  ret void\n"


def kernels(n: int, body: str = BODY, sep: str = "\n", first: int = 0) -> str:
    return "".join(sep + HEAD.format(f"k{k}") + body + "}\n" for k in range(first, first + n))


MODULES = {
    "same": 'target triple = "amdgcn-amd-amdhsa"\n' + kernels(12),
    "no-blank-lines": kernels(6, sep=""),
    "many-blank-lines": kernels(6, sep="\n\n\n"),
    "blank-with-spaces": kernels(4) + "  \n" + kernels(4, first=4, sep=""),
    "comment-between": kernels(4) + "; a comment\n" + kernels(4, first=4),
    "no-final-newline": kernels(6)[:-1],
    "crlf": kernels(6).replace("\n", "\r\n"),
    "other-body-between": kernels(4) + kernels(1, OTHER, first=4) + kernels(4, first=5),
    "two-bodies-alternating": "".join(kernels(1, BODY if k % 2 else OTHER, first=k) for k in range(10)),
    "blocks": kernels(6, BLOCKS),
    "close-with-comment": kernels(4) + kernels(1, first=4).replace("}\n", "} ; end\n") + kernels(3, first=5),
    "close-with-blanks": kernels(4) + kernels(1, first=4).replace("}\n", "}  \n") + kernels(3, first=5),
    "other-names": kernels(4) + "".join(
        "\n" + HEAD.format(name) + BODY + "}\n" for name in ("a.b", "_x$y", "-z", "k-1.2", "u_v")),
    "quoted-and-numbered-names": kernels(4) + "\n" + HEAD.format('"q r"') + BODY + "}\n" + "\n" + HEAD.format("77")
    + BODY + "}\n" + kernels(3, first=4),
    "global-after": kernels(5) + "\n@g = addrspace(1) global i32 0\n" + kernels(3, first=5),
    "declare-between": kernels(3) + "\ndeclare void @f()\n" + kernels(3, first=3),
    "other-define-line": kernels(4) + "\n" + HEAD.replace("noalias %b", "%b").format("m") + BODY + "}\n"
    + kernels(3, first=4),
    "uses-global": "@g = addrspace(1) global i32 0\n" + kernels(
        5, "  %x = load i32, ptr addrspace(1) @g, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
        "  ret void\n"),
    "nvvm": kernels(5).replace("amdgpu_kernel ", "") + '\n!nvvm.annotations = !{!0}\n!0 = !{ptr @k3, !"kernel", i32 1}\n',
}

#: modules where no function is made from a template: a '}' line that ends in '\r', a body that
#: uses a global (not kept), two bodies that alternate (each template stops at the next)
NOT_MADE = {"crlf", "uses-global", "two-bodies-alternating"}

BAD = {
    "function-twice": kernels(5) + kernels(1, first=2),
    "global-then-function": "@k3 = addrspace(1) global i32 0\n" + kernels(6),
    "undefined-in-later-body": kernels(4) + kernels(1, BODY.replace("%x, ptr", "%z, ptr"), first=4),
    "unclosed-last": kernels(4) + "\n" + HEAD.format("k9") + BODY,
}


def _value(v: Any, fn: Function, shapes: dict[int, int]) -> Any:
    if isinstance(v, list) and v and isinstance(v[0], Argument):
        return [tuple(_value(getattr(a, s), fn, shapes) for s in ARGUMENT_SLOTS) for a in v]
    if isinstance(v, list) and v and hasattr(v[0], "opcode"):
        return [(i.name, i.opcode, i.start, i._len, i._op, i.ops, i.function is fn, type(i.start)) for i in v]
    if isinstance(v, dict):
        return [(k, fn._instrs.index(i)) for k, i in v.items()]
    if isinstance(v, SourceFile):
        return "source"
    if v is not None and type(v).__name__ == "LineShape":
        return ("shape", shapes.setdefault(id(v), len(shapes)))
    if isinstance(v, set):
        return sorted(v)
    if type(v).__name__ == "Type":
        return ("type", str(v))  # (a type the tokenizer reads is made again by each parse)
    return v


def model(mod: Module) -> list[Any]:
    """Every slot of every function (its arguments' and instructions' too), and the order
    of the module's lists and names."""
    shapes: dict[int, int] = {}
    out: list[Any] = [list(mod.functions_by_name), [fn.name for fn in mod.functions]]
    for fn in mod.functions:
        fn.instrs  # noqa: B018 - a deferred body read
        out.append([(s, _value(getattr(fn, s), fn, shapes)) for s in FUNCTION_SLOTS])
    return out


def _parse(text: str, deferred: bool = False) -> Any:
    try:
        if deferred:
            mod, bodies = parse_module_deferred(SourceFile("in.ll", text))
            bodies.check()
            return model(mod)
        return model(parse_module(SourceFile("in.ll", text)))
    except LLNoaliasError as e:
        return ("error", e.format())


def _counting(m: pytest.MonkeyPatch, copy: Any) -> list[int]:
    made: list[int] = []

    def counted(*args: Any) -> tuple[int, int, int]:
        got = copy(*args)
        made.append(got[0])
        return got

    m.setattr(parser, "_kernels", counted)
    return made


def test_the_slots_named_are_every_slot() -> None:
    assert sorted(FUNCTION_SLOTS) == sorted(Function.__slots__)
    assert sorted(ARGUMENT_SLOTS) == sorted(Argument.__slots__)


@needs_cscan
@pytest.mark.parametrize("deferred", [False, True], ids=["one-pass", "deferred"])
@pytest.mark.parametrize("name", sorted(MODULES) + sorted(BAD))
def test_copies_make_what_the_reader_makes(monkeypatch: pytest.MonkeyPatch, name: str, deferred: bool) -> None:
    text = MODULES.get(name) or BAD[name]
    with monkeypatch.context() as m:
        m.setattr(toplevel_reader, "KERNEL_COPY", False)
        want = _parse(text, deferred)
    assert lines.cscan is not None
    for copy in (lines.cscan.kernels_copy, kernel_copy.copy_kernels):
        with monkeypatch.context() as m:
            made = _counting(m, copy)
            assert _parse(text, deferred) == want, (name, copy)
        if name in MODULES and name not in NOT_MADE:
            assert sum(made) > 0, f"{name}: nothing made from a template"
        elif name in NOT_MADE and not deferred:  # (deferred: a body left unread leaves the template)
            assert sum(made) == 0, name
    if name in BAD:
        assert want[0] == "error"


@needs_cscan
def test_a_run_of_kernels_is_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # k0 is read, k1 makes the shape and keeps its body, k2 is made again from it: the
    # template; k3 on are made by one call
    made = _counting(monkeypatch, parser._kernels)
    mod = parse_module(SourceFile("in.ll", kernels(50)))
    assert made == [47] and len(mod.functions) == 50


@needs_cscan
def test_each_stop_is_where_the_reader_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _counting(monkeypatch, parser._kernels)
    parse_module(SourceFile("in.ll", MODULES["other-body-between"]))
    # k3 is made, k4's other body stops the call there; at k4 the next call makes nothing and
    # the reader reads it; the template still stands, and k5 to k8 are made by one call
    assert made == [1, 0, 4]


@needs_cscan
def test_a_forgotten_shape_forgets_its_template(monkeypatch: pytest.MonkeyPatch) -> None:
    # many define lines of other shapes between: the reader forgets its shapes, and the
    # kernels after are read (their shape made again) as without the copies
    monkeypatch.setattr(header_reader, "_SEEN_LIMIT", 3)
    others = "".join("\n" + HEAD.replace("%b)", f"%b{k})").replace("%b,", f"%b{k},").format(f"o{k}")
                     + BODY.replace("%b", f"%b{k}") + "}\n" for k in range(4))
    text = kernels(5) + others + kernels(5, first=5)
    got = _parse(text)
    monkeypatch.setattr(toplevel_reader, "KERNEL_COPY", False)
    assert got == _parse(text)


@needs_cscan
def test_a_class_laid_out_otherwise_is_left_to_python() -> None:
    # a template whose Function slots leave one out: the compiled call makes nothing
    assert lines.cscan is not None
    text = kernels(6)
    mod = parse_module(SourceFile("in.ll", text))
    fn = mod.functions[2]
    tpl = kernel_copy.make_template(text[fn.start:text.find("\n", fn.start)], len("define amdgpu_kernel void "),
                                    len("define amdgpu_kernel void @k2"), fn, BODY, next(iter(fn.arg_shape.bodies
                                                                                           .values())))
    start = mod.functions[3].start
    short = tpl[:8] + (FUNCTION_SLOTS[:-1], tpl[9][:-1]) + tpl[10:]
    assert lines.cscan.kernels_copy(text, start, 0, short, kernel_copy.Instruction, [], {}, {})[0] == 0
    made: list[Function] = []
    got = lines.cscan.kernels_copy(text, start, 0, tpl, kernel_copy.Instruction, made, {}, {})
    assert got[0] == 3 and [f.name for f in made] == ["@k3", "@k4", "@k5"] and got[1] == len(text)
