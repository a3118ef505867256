"""The lean way through a trivial kernel (``scopes.plan_trivial``, the "trivial-kernel" row
of tests/support/fast_paths.py): it applies exactly to kernels of plain loads and stores
through rooted arguments, and gives what the stages give, output and report alike."""

from __future__ import annotations

import json

import pytest

import llnoalias
from llnoalias.analysis.provenance.rootset import RootSet
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform import function_pass
from llnoalias.transform.roots import find_roots
from llnoalias.transform.scopes import Plan, plan_trivial

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'
LDS = "@smem = addrspace(3) global [64 x i32] undef, align 4\n\n"


def kernel(params: str, body: str, name: str = "k") -> str:
    return f"define amdgpu_kernel void @{name}({params}) {{\n{body}\n}}\n"


PLAIN = "ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b"
COPY = "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"

#: name -> (module, does plan_trivial take its kernel @k)
CASES: dict[str, tuple[str, bool]] = {
    "copy": (HEAD + kernel(PLAIN, COPY), True),
    "copy-lds-module": (HEAD + LDS + kernel(PLAIN, COPY), True),
    "no-access": (HEAD + kernel(PLAIN, "  ret void"), True),
    "one-arg-twice": (HEAD + kernel(PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4\n"
                                     "  %y = load i32, ptr addrspace(1) %a, align 4\n"
                                     "  store i32 %y, ptr addrspace(1) %a, align 4\n  ret void"), True),
    "flat-pointers": (HEAD + kernel("ptr noalias %a, ptr noalias %b",
                                    "  %x = load i32, ptr %a, align 4\n  store i32 %x, ptr %b, align 4\n"
                                    "  ret void"), True),
    "private-pointer-arg": (HEAD + kernel("ptr addrspace(5) noalias %a, ptr addrspace(1) noalias %b",
                                          "  %x = load i32, ptr addrspace(5) %a, align 4\n"
                                          "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
    # a root that cannot reach global memory: its access gets no decision (``decide``)
    "nvptx-cluster-arg": ('target triple = "nvptx64-nvidia-cuda"\n\n'
                          "define ptx_kernel void @k(ptr addrspace(7) noalias %a, ptr addrspace(1) noalias %b) {\n"
                          "  %x = load i32, ptr addrspace(7) %a, align 4\n"
                          "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void\n}\n", True),
    "unnamed-args": (HEAD + "define amdgpu_kernel void @k(ptr addrspace(1) noalias %0, ptr addrspace(1) "
                     "noalias %1) {\n  %3 = load i32, ptr addrspace(1) %0, align 4\n"
                     "  store i32 %3, ptr addrspace(1) %1, align 4\n  ret void\n}\n", True),
    "already-invariant": (HEAD + kernel(PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4, !invariant.load !0\n"
                                        "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void")
                          + "\n!0 = !{}\n", True),
    "own-scopes": (HEAD + kernel(PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4, !noalias !0\n"
                                 "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void")
                   + '\n!0 = !{!1}\n!1 = distinct !{!1, !2, !"x"}\n!2 = distinct !{!2, !"d"}\n', True),
    "readonly-already": (HEAD + kernel("ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias %b", COPY),
                         True),
    "nvptx": ('target triple = "nvptx64-nvidia-cuda"\n\n'
              "define ptx_kernel void @k(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b) {\n"
              + COPY + "\n}\n", True),
    "several-kernels": (HEAD + kernel(PLAIN, COPY) + "\n" + kernel(PLAIN, COPY, "k2"), True),
    # one shape, two kernels: the lines of the second's reads and writes counted from its own
    # first instruction, across a comment and a blank line
    "spaced-twice": (HEAD + kernel(PLAIN, COPY.replace("\n", "\n  ; between\n\n", 1)) + "\n\n"
                     + kernel(PLAIN, COPY.replace("\n", "\n  ; between\n\n", 1), "k2"), True),
    "not-noalias": (HEAD + kernel("ptr addrspace(1) %a, ptr addrspace(1) noalias %b", COPY), False),
    "stores-an-argument": (HEAD + kernel("ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b",
                                         "  store ptr addrspace(1) %a, ptr addrspace(1) %b, align 8\n"
                                         "  ret void"), False),
    "volatile": (HEAD + kernel(PLAIN, "  %x = load volatile i32, ptr addrspace(1) %a, align 4\n"
                               "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
    "atomic-load": (HEAD + kernel(PLAIN, "  %x = load atomic i32, ptr addrspace(1) %a monotonic, align 4\n"
                                  "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
    "gep": (HEAD + kernel(PLAIN, "  %p = getelementptr i32, ptr addrspace(1) %a, i64 1\n"
                          "  %x = load i32, ptr addrspace(1) %p, align 4\n"
                          "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
    "call": (HEAD + kernel(PLAIN, "  %i = call i32 @llvm.amdgcn.workitem.id.x()\n" + COPY)
             + "\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n", False),
    "lds-access": (HEAD + LDS + kernel(PLAIN, "  %x = load i32, ptr addrspace(3) @smem, align 4\n"
                                       "  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
    "loaded-pointer": (HEAD + kernel(PLAIN, "  %p = load ptr addrspace(1), ptr addrspace(1) %a, align 8\n"
                                     "  store i32 0, ptr addrspace(1) %p, align 4\n  ret void"), False),
    "branch": (HEAD + kernel(PLAIN, "  %x = load i32, ptr addrspace(1) %a, align 4\n  br label %next\n"
                             "next:\n  store i32 %x, ptr addrspace(1) %b, align 4\n  ret void"), False),
}

OPTION_SETS = [{}, {"args": "noalias"}, {"lds": "all", "args": "noalias"}, {"args": "noalias", "may_alias": ["0,1"]},
               {"regions": False}]


def _takes(text: str, options: AnnotateOptions) -> bool:
    mod = parse_module(SourceFile("t.ll", text))
    roots: RootSet = find_roots(mod, options)
    fn = mod.functions_by_name["@k"]
    ka = roots.kernels.get(fn.name)
    return ka is not None and bool(ka.roots) and plan_trivial(mod, fn, ka, Plan()) is not None


def _outcome(text: str, lean: bool, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple[str, str]:
    monkeypatch.setattr(function_pass, "LEAN", lean)
    res = llnoalias.annotate(text, path="t.ll", **options)  # type: ignore[arg-type]
    return res.text, json.dumps(res.report.as_dict(), sort_keys=True, default=str)


@pytest.mark.parametrize("name", sorted(CASES))
def test_applies_where_it_should(name: str) -> None:
    text, trivial = CASES[name]
    assert _takes(text, AnnotateOptions()) is trivial


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_same_as_the_stages(name: str, options: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[name][0]
    assert _outcome(text, True, monkeypatch, **options) == _outcome(text, False, monkeypatch, **options)


def test_decisions_and_effects() -> None:
    """The copy kernel: one decision per access, in the kernel's domain, each with its
    argument's root; the load's argument read on its line, the store's written on its."""
    from llnoalias.analysis.memory.effects import analyse_effects

    text = CASES["copy"][0]
    mod = parse_module(SourceFile("t.ll", text))
    roots = find_roots(mod, AnnotateOptions())
    fn = mod.functions_by_name["@k"]
    ka = roots.kernels[fn.name]
    plan = Plan()
    got = plan_trivial(mod, fn, ka, plan)
    assert got is not None
    made, shape = got
    assert plan.decisions == made
    assert [(d.access.kind, d.domain, [r.name for r in d.keys]) for d in made] == [
        ("load", ka.domain, ["a"]), ("store", ka.domain, ["b"])]
    assert [(pos, i) for pos, _, i, _ in shape.accesses] == [(0, 0), (1, 1)]
    assert shape.loads == ((0, 0),)
    # the lines of the first read and write, counted from the first instruction's (line 4)
    assert (shape.reads, shape.writes) == ({0: 0}, {1: 1})
    long = analyse_effects(mod, fn)
    assert {i: (e.read, e.write, e.escape) for i, e in long.items()} == {0: (4, 0, 0), 1: (0, 5, 0)}


def test_lean_is_taken_on_small_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run takes the lean way (no provenance made for the kernel) where it applies."""
    from llnoalias.analysis.provenance import solver

    made: list[str] = []
    real = solver.ModuleAnalysis.function

    def spy(self: solver.ModuleAnalysis, fn: object) -> solver.FunctionAnalysis:
        made.append(fn.name)  # type: ignore[attr-defined]
        return real(self, fn)  # type: ignore[arg-type]

    monkeypatch.setattr(solver.ModuleAnalysis, "function", spy)
    llnoalias.annotate(CASES["several-kernels"][0], args="noalias")
    assert made == []
    llnoalias.annotate(CASES["gep"][0], args="noalias")
    assert made == ["@k"] * len(made) and made


def test_a_remembered_shape_still_asks_the_roots() -> None:
    """``Plan.trivial_shapes`` keeps what a body's text says, not its kernel's roots: a
    second kernel spelled the same whose argument is not a root is refused, one whose
    arguments are named otherwise is read again, and a remembered shape gives the same
    decisions and accesses as a fresh read."""
    text = (HEAD + kernel(PLAIN, COPY) + "\n" + kernel("ptr addrspace(1) %a, ptr addrspace(1) noalias %b", COPY, "k2")
            + "\n" + kernel(PLAIN, COPY, "k3") + "\n"
            + kernel("ptr addrspace(1) noalias %b, ptr addrspace(1) noalias %a", COPY, "k4"))
    mod = parse_module(SourceFile("t.ll", text))
    roots = find_roots(mod, AnnotateOptions())
    plan = Plan()

    def lean(name: str, into: Plan) -> tuple[list[tuple[str, str]], list[tuple[int, int]]] | None:
        fn = mod.functions_by_name[name]
        got = plan_trivial(mod, fn, roots.kernels[fn.name], into)
        if got is None:
            return None
        made, shape = got
        assert [d.access.inst for d in made] == [fn.instrs[pos] for pos, *_ in shape.accesses]
        return [(d.access.kind, d.keys[0].name) for d in made], [(pos, i) for pos, _, i, _ in shape.accesses]

    assert lean("@k", plan) == ([("load", "a"), ("store", "b")], [(0, 0), (1, 1)])
    assert plan.trivial_shapes is not None and len(plan.trivial_shapes) == 1
    assert roots.kernels["@k2"].roots and lean("@k2", plan) is None  # %a is no root there
    assert lean("@k3", plan) == lean("@k3", Plan()) == ([("load", "a"), ("store", "b")], [(0, 0), (1, 1)])
    assert lean("@k4", plan) == ([("load", "a"), ("store", "b")], [(0, 1), (1, 0)])
    assert len(plan.trivial_shapes) == 2
    forgetful = Plan()
    forgetful.trivial_shapes = None
    assert lean("@k4", forgetful) == lean("@k4", Plan())
