"""What a module of many kernels keeps per kernel and argument: the objects ``find_roots``
and ``kernel_edits`` share or leave out must read as the ones they stand for
(``KernelArgs.grouped``, the added lists, ``attributes.LineArgRecord``)."""

from __future__ import annotations

import llnoalias
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import find_roots

HEAD = 'target triple = "amdgcn-amd-amdhsa"\n\n'
COPY = ("define amdgpu_kernel void @{name}(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {{\n"
        "  %x = load i32, ptr addrspace(1) %a, align 4\n  store i32 %x, ptr addrspace(1) %b, align 4\n"
        "  ret void\n}}\n")


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


def test_a_line_record_reads_as_the_record_it_stands_for() -> None:
    """An argument read or written on a line: its record holds the line and makes the
    reason when read, as the ``ArgRecord`` made before (text, code, equality, pickling)."""
    import pickle

    from llnoalias import reasons
    from llnoalias.report.record import ArgRecord
    from llnoalias.transform.attributes import LineArgRecord

    res = llnoalias.annotate(HEAD + COPY.format(name="k"), args="noalias")
    a, b = res.report.args[:2]
    assert type(a) is LineArgRecord and type(b) is LineArgRecord
    assert (a.readonly, a.writeonly) == ("proved", "no: read at line 4")
    assert (b.readonly, b.writeonly) == ("no: written at line 5", "proved")
    assert reasons.NO_READ.matches(a.writeonly) and reasons.NO_WRITTEN.matches(b.readonly)
    want = ArgRecord("@k", 1, "%b", True, "", reasons.NO_WRITTEN.one(5), "proved", ["writeonly"])
    assert b.as_dict() == want.as_dict() and repr(b).replace("LineArgRecord", "ArgRecord") == repr(want)
    back = pickle.loads(pickle.dumps(b))
    assert type(back) is LineArgRecord and back == b and back.readonly.code == "written"  # type: ignore[attr-defined]
    b.readonly = "changed"
    assert b.readonly == "changed" and b != back
    # an argument neither read nor written on a line keeps a plain ArgRecord
    none = llnoalias.annotate(HEAD + COPY.format(name="k").replace("  %x = load i32, ptr addrspace(1) %a, align 4\n"
                                                                     "  store i32 %x, ptr addrspace(1) %b, align 4\n",
                                                                     ""), args="noalias")
    assert all(type(r) is ArgRecord for r in none.report.args)
