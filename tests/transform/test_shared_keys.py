"""Decisions share their key lists, and what reads them reads each list once.

``plan_function`` gives the decisions of one function that have the same roots one list;
``finish`` reads a list once per domain. These tests check that the sharing is what it
should be, and that ``finish`` still collects every scope of a domain, in first-use order,
equal keys once, and withdraws a domain left with one scope, whether lists are shared or
not.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from llnoalias import reasons
from llnoalias.analysis.memory.accesses import RELEASED, Access
from llnoalias.analysis.provenance.lattice import Root
from llnoalias.analysis.provenance.rootset import LDS_DOMAIN
from llnoalias.analysis.provenance.solver import ModuleAnalysis
from llnoalias.ir.model import Instruction
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform.pipeline import annotate_text
from llnoalias.transform.roots import find_roots
from llnoalias.transform.scopes import Decision, Plan, Region, ScopeKey, finish, plan_function

#: finish reads keys and domains only: an access of no function
NO_ACCESS = Access(cast(Instruction, SimpleNamespace()), "load", RELEASED, RELEASED)


def _root(name: str, domain: str = LDS_DOMAIN) -> Root:
    return Root(domain, name, "lds", (name,), 0)


def _decision(domain: str, keys: list[ScopeKey]) -> Decision:
    return Decision(NO_ACCESS, domain, [], keys)


def test_finish_collects_each_domain_once_per_list_and_in_first_use_order() -> None:
    a, b, c = _root("a"), _root("b"), _root("c")
    other = "llnoalias.args.k"
    x, y = _root("x", other), _root("y", other)
    shared: list[ScopeKey] = [b, a]
    p = Plan()
    p.decisions = [
        _decision(LDS_DOMAIN, shared),
        _decision(LDS_DOMAIN, shared),
        # the same list object in another domain is read there too
        _decision(other, shared),
        _decision(LDS_DOMAIN, [a, c]),
        _decision(other, [x]),
        _decision(other, [y]),
        _decision(LDS_DOMAIN, []),  # untagged: adds nothing
    ]
    p = finish(p)
    assert p.domain_keys[LDS_DOMAIN] == [b, a, c]
    assert p.domain_keys[other] == [b, a, x, y]


def test_finish_keeps_equal_regions_of_distinct_lists_once() -> None:
    r = _root("tile")
    p = Plan()
    # value-equal regions in two lists (two functions' decisions): one scope
    p.decisions = [_decision(LDS_DOMAIN, [Region(r, 0, 4)]), _decision(LDS_DOMAIN, [Region(r, 0, 4)]),
                   _decision(LDS_DOMAIN, [Region(r, 4, 8)])]
    p = finish(p)
    assert p.domain_keys[LDS_DOMAIN] == [Region(r, 0, 4), Region(r, 4, 8)]


def test_finish_withdraws_a_domain_whose_shared_list_is_its_only_scope() -> None:
    a = _root("a")
    shared: list[ScopeKey] = [a]
    p = Plan()
    p.decisions = [_decision(LDS_DOMAIN, shared) for _ in range(3)]
    p = finish(p)
    assert LDS_DOMAIN not in p.domain_keys
    for d in p.decisions:
        assert not d.keys
        assert d.reason == reasons.SINGLE_SCOPE.format(root="a")


KERNEL = """target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@a = internal addrspace(3) global [64 x float] undef, align 16
@b = internal addrspace(3) global [64 x float] undef, align 16

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.memcpy.p3.p3.i32(ptr addrspace(3), ptr addrspace(3), i32, i1)

define amdgpu_kernel void @k(i1 %c) "amdgpu-flat-work-group-size"="1,64" {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr inbounds [64 x float], ptr addrspace(3) @a, i32 0, i32 %t
  %pb = getelementptr inbounds [64 x float], ptr addrspace(3) @b, i32 0, i32 %t
  %pe = select i1 %c, ptr addrspace(3) %pa, ptr addrspace(3) %pb
  store float 1.0, ptr addrspace(3) %pa, align 4
  %x = load float, ptr addrspace(3) %pa, align 4
  store float %x, ptr addrspace(3) %pb, align 4
  %y = load float, ptr addrspace(3) %pb, align 4
  call void @llvm.memcpy.p3.p3.i32(ptr addrspace(3) %pa, ptr addrspace(3) %pb, i32 4, i1 false)
  call void @llvm.memcpy.p3.p3.i32(ptr addrspace(3) %pb, ptr addrspace(3) %pa, i32 4, i1 false)
  store float %y, ptr addrspace(3) %pe, align 4
  ret void
}
"""


def test_plan_function_shares_one_list_per_set_of_roots() -> None:
    mod = parse_module(SourceFile("k.ll", KERNEL))
    roots = find_roots(mod, AnnotateOptions(lds="all"))
    ma = ModuleAnalysis(mod, roots)
    made = plan_function(mod, ma, roots, mod.functions[0], brief=True)
    by_roots: dict[tuple[str, ...], list[Decision]] = {}
    untagged = 0
    for d in made:
        if not d.keys:
            untagged += 1  # the select's store: either buffer
            continue
        assert d.keys is d.roots
        by_roots.setdefault(tuple(r.name for r in d.roots), []).append(d)
    assert untagged == 1
    # the memcpys list their roots in their operands' order: two lists
    assert sorted(by_roots) == [("a",), ("a", "b"), ("b",), ("b", "a")]
    for names in (("a",), ("b",)):
        group = by_roots[names]
        assert len(group) == 2
        assert group[0].roots is group[1].roots  # one list for the set
    assert len({id(group[0].roots) for group in by_roots.values()}) == 4


def test_the_shared_lists_give_each_access_its_own_scopes() -> None:
    out = annotate_text(KERNEL, "k.ll", AnnotateOptions(lds="all")).text
    body = out.split("define", 1)[1].split("\n}\n", 1)[0]
    tagged = {"store float 1.0": ("a", "b"), "%x = load": ("a", "b"), "store float %x": ("b", "a"),
              "%y = load": ("b", "a")}
    names = {m.split("!")[1].split(" ")[0].rstrip(","): m for m in out.splitlines() if m.startswith("!")}
    assert names  # the scope nodes were written
    seen = 0
    for ln in body.splitlines():
        for start, (own, other) in tagged.items():
            if ln.strip().startswith(start):
                seen += 1
                scope = ln.split("!alias.scope !")[1].split(",")[0]
                noalias = ln.split("!noalias !")[1].split(",")[0]
                assert f'!"{own}"' in names[names[scope].split("!{!")[1].rstrip("}")], ln
                assert f'!"{other}"' in names[names[noalias].split("!{!")[1].rstrip("}")], ln
        if "%pe" in ln and "store" in ln:
            assert "!alias.scope" not in ln and "!noalias" not in ln
    assert seen == len(tagged)
