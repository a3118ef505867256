"""A trivial kernel stamped from a template (``function_pass.LeanTemplate``, the
"lean-template" row of tests/support/fast_paths.py): made from a kernel of a body and
define line met before, it gives each kernel after it what the lean way and the stages give
it, output and report alike, in one process and in worker processes."""

from __future__ import annotations

import json

import pytest

import llnoalias
from llnoalias.ir.model import Function
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform import function_pass, pipeline, workers
from llnoalias.transform.attributes import LineArgRecord, StampedArgRecord
from llnoalias.transform.function_pass import FunctionPass, LeanTemplate, Run
from llnoalias.transform.roots import find_roots

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'
PLAIN = "ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b"
COPY = "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"


def kernel(params: str, body: str, name: str, cc: str = "amdgpu_kernel") -> str:
    return f"define {cc} void @{name}({params}) {{\n{body}\n}}\n"


#: name -> (parameters, body): each module holds several kernels of one of them
SHAPES: dict[str, tuple[str, str]] = {
    "copy": (PLAIN, COPY),
    "not-noalias": ("ptr addrspace(1) %a, ptr addrspace(1) %b", COPY),
    "one-not-noalias": ("ptr addrspace(1) %a, ptr addrspace(1) noalias %b", COPY),
    "an-integer-too": (PLAIN + ", i32 %n", COPY),
    "readonly-already": ("ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias %b", COPY),
    "writeonly-already": ("ptr addrspace(1) noalias %a, ptr addrspace(1) noalias writeonly %b", COPY),
    "readnone": ("ptr addrspace(1) noalias readnone %a, ptr addrspace(1) noalias %b", "  ret void"),
    "no-access": (PLAIN, "  ret void"),
    "one-arg-twice": (PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4\n"
                      "  %y = load i32, ptr addrspace(1) %a, align 4\n"
                      "  store i32 %y, ptr addrspace(1) %a, align 4\n  ret void"),
    "two-loads-two-stores": (PLAIN + ", ptr addrspace(1) noalias %c",
                             "  %x = load i32, ptr addrspace(1) %a, align 4\n"
                             "  %y = load i32, ptr addrspace(1) %b, align 4\n"
                             "  store i32 %x, ptr addrspace(1) %c, align 4\n"
                             "  store i32 %y, ptr addrspace(1) %c, align 4\n  ret void"),
    "flat": ("ptr noalias %a, ptr noalias %b", "  %x = load i32, ptr %a, align 4\n  store i32 %x, ptr %b, align 4\n"
             "  ret void"),
    "unnamed": ("ptr addrspace(1) noalias %0, ptr addrspace(1) noalias %1",
                "  %3 = load i32, ptr addrspace(1) %0, align 4\n  store i32 %3, ptr addrspace(1) %1, align 4\n"
                "  ret void"),
    "already-invariant": (PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4, !invariant.load !0\n"
                          "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"),
    "spaced": (PLAIN, COPY.replace("\n", "\n  ; between\n\n", 1)),
    "labelled": (PLAIN, "entry:\n" + COPY),
    "byval": ("ptr addrspace(1) byval(i32) %a, ptr addrspace(1) noalias %b", COPY),
    "private": ("ptr addrspace(5) noalias %a, ptr addrspace(1) noalias %b",
                "  %x = load i32, ptr addrspace(5) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
                "  ret void"),
    "store-only": (PLAIN, "  store i32 0, ptr addrspace(1) %b, align 4\n  ret void"),
}

OPTION_SETS = [{}, {"args": "noalias"}, {"lds": "all", "args": "noalias"}, {"args": "off"},
               {"args": "noalias", "may_alias": ["0,1"]}, {"regions": False}]


def module(name: str, copies: int = 4) -> str:
    params, body = SHAPES[name]
    tail = "\n!0 = !{}\n" if "!0" in body else ""
    # another kernel between them: a template is found again after another body
    other = kernel(PLAIN, "  store i32 1, ptr addrspace(1) %a, align 4\n  ret void", "other")
    parts = [kernel(params, body, f"k{i}") for i in range(copies)]
    parts.insert(2, other)
    return HEAD + "\n".join(parts) + tail


def _outcome(text: str, monkeypatch: pytest.MonkeyPatch, how: str, jobs: int = 1,
             **options: object) -> tuple[str, str]:
    with monkeypatch.context() as m:
        if how == "stages":
            m.setattr(function_pass, "LEAN", False)
        elif how == "lean":
            m.setattr(function_pass, "TEMPLATES", False)
        elif how == "every":
            m.setattr(function_pass, "STAMP_EVERY", True)
        if jobs > 1:  # a worker per function
            m.setattr(workers, "MIN_GROUP_INSTRUCTIONS", 1)
            m.setattr(workers, "MIN_AVERAGE_INSTRUCTIONS", 0)
            m.setattr(pipeline, "DEFER_CHARS", 1 << 62)
        res = llnoalias.annotate(text, path="t.ll", jobs=jobs, **options)  # type: ignore[arg-type]
        return res.text, json.dumps(res.report.as_dict(), sort_keys=True, default=str)


def _stamps(text: str, monkeypatch: pytest.MonkeyPatch, **options: object) -> list[str]:
    stamped: list[str] = []
    real = FunctionPass._stamp

    def spy(self: FunctionPass, fns: list[Function], i: int, *rest: object) -> object:
        got = real(self, fns, i, *rest)  # type: ignore[arg-type]
        stamped.extend(fn.name for fn in fns[i:got[2]])
        return got

    with monkeypatch.context() as m:
        m.setattr(FunctionPass, "_stamp", spy)
        llnoalias.annotate(text, path="t.ll", **options)  # type: ignore[arg-type]
    return stamped


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_stamped_as_the_lean_way_and_the_stages(name: str, options: dict[str, object],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    text = module(name)
    want = _outcome(text, monkeypatch, "stages", **options)
    assert _outcome(text, monkeypatch, "lean", **options) == want
    assert _outcome(text, monkeypatch, "template", **options) == want
    assert _outcome(text, monkeypatch, "every", **options) == want


@pytest.mark.parametrize("name", ["copy", "one-arg-twice", "an-integer-too", "already-invariant"])
def test_stamped_in_workers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker stamps as the parent does: its reply (``ship``) lands as a run in one process."""
    text = module(name, copies=6)
    for options in ({}, {"lds": "all", "args": "noalias"}):
        want = _outcome(text, monkeypatch, "lean", **options)
        assert _outcome(text, monkeypatch, "template", jobs=3, **options) == want
        assert _outcome(text, monkeypatch, "every", jobs=3, **options) == want


def test_taken_from_the_third_kernel_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The template is made from the second kernel of a body and define line (its shape
    remembered) and stamped from the third on; a kernel whose define line differs in more
    than its name (its own ``arg_shape``) is not stamped, nor any under ``--may-alias``."""
    text = module("copy", copies=5)
    assert _stamps(text, monkeypatch) == ["@k2", "@k3", "@k4"]
    assert _stamps(text, monkeypatch, may_alias=["0,1"]) == []
    other_names = HEAD + "\n".join(kernel(PLAIN.replace("%a", f"%a{i}"), COPY.replace("%a", f"%a{i}"), f"k{i}")
                                   for i in range(4))
    assert _stamps(other_names, monkeypatch) == []
    with monkeypatch.context() as m:
        m.setattr(function_pass, "TEMPLATES", False)
        assert _stamps(text, monkeypatch) == []


def test_a_stamped_kernel_has_its_own_lines_and_offsets() -> None:
    """Each stamped kernel's records name it and its own lines; its attributes are inserted
    at its own arguments and its loads' ends."""
    text = module("spaced", copies=5)
    res = llnoalias.annotate(text, path="t.ll", args="noalias")
    lines = text.split("\n")
    by_kernel = {}
    for r in res.report.args:
        by_kernel.setdefault(r.kernel, []).append(r)
    for i in range(5):
        a, b = by_kernel[f"@k{i}"]
        if i >= 2:  # (stamped: each reads as the record the lean way makes)
            assert type(a) is StampedArgRecord and type(b) is StampedArgRecord
            a, b = a.unstamped(), b.unstamped()
        assert type(a) is LineArgRecord and type(b) is LineArgRecord
        load_line = next(n for n, t in enumerate(lines, 1) if t.startswith(f"define amdgpu_kernel void @k{i}(")) + 1
        assert a.writeonly == f"no: read at line {load_line}"
        assert b.readonly == f"no: written at line {load_line + 3}"  # (past the comment and the blank)
        assert a.added == ["readonly"] and b.added == ["writeonly"]
    out = res.text
    assert out.count("noalias readonly %a") == 5 and out.count("noalias writeonly %b") == 5
    assert out.count(", !invariant.load !") == 5


def test_the_template_reads_back_what_it_was_made_from() -> None:
    """``LeanTemplate.make`` keeps the places and fields the kernel's own parts had."""
    text = module("two-loads-two-stores", copies=3)
    mod = parse_module(SourceFile("t.ll", text))
    opts = AnnotateOptions(args="noalias")
    roots = find_roots(mod, opts)
    from llnoalias.analysis.provenance.solver import ModuleAnalysis

    run = Run(mod, ModuleAnalysis(mod, roots), roots, opts, True)
    fp = FunctionPass(run)
    fp.run_all(range(len(mod.functions)))
    assert fp.templates is not None and len(fp.templates) == 1
    t: LeanTemplate = next(iter(fp.templates.values()))
    assert t.rooted == frozenset((0, 1, 2))
    assert t.decisions == ((0, 0), (1, 1), (2, 2), (3, 2)) and t.shared
    assert [spec[:2] for spec in t.specs] == [(0, "%a"), (1, "%b"), (2, "%c")] and t.lines
    assert [(spec[7], spec[8]) for spec in t.specs] == [(2, LineArgRecord), (2, LineArgRecord), (1, LineArgRecord)]
    assert t.gap == 1 and t.count == 5 and t.line is mod.functions_by_name["@k1"].arg_shape
    assert [text for _, text in t.inserts] == ["readonly ", "readonly ", "writeonly "]
    assert t.invariant == (0, 1)
    # the decisions of a stamped kernel: one list per root, shared as ``trivial_plan`` shares them
    fn = mod.functions_by_name["@k2"]
    made = [d for d in run.plan.decisions if d.inst.function is fn]
    assert [d.inst for d in made] == fn.instrs[:4]
    assert made[2].keys is made[3].keys and made[0].keys is not made[1].keys
    ka = roots.kernels["@k2"]
    assert [d.keys[0] for d in made] == [ka.roots[0], ka.roots[1], ka.roots[2], ka.roots[2]]


def test_kernels_of_one_define_line_share_what_is_not_rooted() -> None:
    """``find_roots`` gives kernels of one define line one ``not_rooted`` dict (read only),
    each its own roots in its own domain; the hint counts each kernel's arguments."""
    from llnoalias.transform.roots import missed_roots

    text = module("one-not-noalias", copies=4)
    mod = parse_module(SourceFile("t.ll", text))
    rs = find_roots(mod, AnnotateOptions())
    kas = [rs.kernels[f"@k{i}"] for i in range(4)]
    assert all(ka.not_rooted == {0: kas[0].not_rooted[0]} for ka in kas)
    assert kas[2].not_rooted is kas[3].not_rooted  # (the first two make the define line's shape)
    assert [ka.domain for ka in kas] == [f"llnoalias.args.k{i}" for i in range(4)]
    assert all(ka.roots[1].domain == ka.domain and ka.roots[1].name == "b" and ka.roots[1].index == 1 for ka in kas)
    assert len({id(ka.roots[1]) for ka in kas}) == 4
    assert missed_roots(rs) == ["4 pointer arguments of @k0, @k1, @k2 and 1 more are not noalias in the input; "
                                "--args noalias makes them roots (a promise that a kernel's pointer arguments "
                                "never reach the same buffer; --may-alias I,J for those that may)"]
