"""What a module of many small kernels keeps per kernel, argument and access: the objects
``plan_trivial``, ``find_roots`` and ``kernel_edits`` share or leave out must read as the
ones they stand for (``scopes.PlainDecision``, ``KernelArgs.grouped``, the added lists)."""

from __future__ import annotations

import llnoalias
from llnoalias.analysis.memory.accesses import RELEASED, Access
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots
from llnoalias.transform.scopes import Decision, PlainDecision, Plan, plan_trivial

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'
COPY = ("define amdgpu_kernel void @{name}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {{\n"
        "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
        "  ret void\n}}\n")
FIELDS = ("fa", "domain", "roots", "keys", "reason", "blocker", "range_note", "byte_range", "dma")


def test_a_plain_decision_reads_as_the_decision_it_stands_for() -> None:
    mod = parse_module(SourceFile("t.ll", HEAD + COPY.format(name="k")))
    roots = find_roots(mod, AnnotateOptions())
    fn = mod.functions_by_name["@k"]
    plan = Plan()
    got = plan_trivial(mod, fn, roots.kernels["@k"], plan)
    assert got is not None
    made = got[0]
    assert len(made) == 2 and all(type(d) is PlainDecision and isinstance(d, Decision) for d in made)
    for d, inst in zip(made, fn.instrs, strict=False):
        # what plan_trivial made before: an Access of released operands, in a Decision
        want = Decision(Access(inst, inst.opcode, RELEASED, RELEASED), None, d.domain, d.roots, d.roots)
        assert d.access == want.access and d.access.inst is inst
        assert d.access.pointers is RELEASED and d.access.opaque is RELEASED and d.access.intrinsic is None
        assert [getattr(d, f) for f in FIELDS] == [getattr(want, f) for f in FIELDS]
        assert d.keys is d.roots and d.tagged
        assert repr(d) == repr(want)
    # the claims the module stages make are made on it as on any decision
    d = made[0]
    d.keys = []
    d.reason = "why"
    assert not d.tagged and d.access.inst is fn.instrs[0]


def test_grouped_is_shared_until_may_alias_names_an_argument() -> None:
    text = HEAD + COPY.format(name="k") + "\n" + COPY.format(name="k2")
    mod = parse_module(SourceFile("t.ll", text))
    plain = find_roots(mod, AnnotateOptions())
    a, b = plain.kernels["@k"], plain.kernels["@k2"]
    assert a.grouped is b.grouped and not a.grouped
    grouped = find_roots(mod, AnnotateOptions(may_alias=((0, 1), (1, 2))))
    a, b = grouped.kernels["@k"], grouped.kernels["@k2"]
    assert a.grouped == {0, 1, 2} == b.grouped and a.grouped is not b.grouped
    assert a.roots[0] is a.roots[1]


def test_added_attributes_read_as_before() -> None:
    text = HEAD + COPY.format(name="k") + "\n" + COPY.format(name="k2").replace("noalias %b", "%b")
    res = llnoalias.annotate(text, args="noalias")
    got = {(r.kernel, r.index): (r.added, r.readonly, r.writeonly) for r in res.report.args}
    assert got[("@k", 0)][0] == ["readonly"] and got[("@k", 1)][0] == ["writeonly"]
    assert got[("@k2", 1)][0] == ["noalias", "writeonly"]
    assert got[("@k", 0)][0] is got[("@k2", 0)][0]  # one list per set of attributes
    assert "ptr addrspace(1) noalias writeonly %b" in res.text
    assert "ptr addrspace(1) noalias readonly %a" in res.text
    off = llnoalias.annotate(text, args="off")
    assert all(r.added == [] and not r.rooted for r in off.report.args)
