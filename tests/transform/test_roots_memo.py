"""``find_roots`` reads each distinct (type, attributes) of an argument once per call: the
roots and reasons it gives must be those of reading every argument on its own."""

from __future__ import annotations

import pytest

from llnoalias import reasons
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile
from llnoalias.options import AnnotateOptions
from llnoalias.transform.roots import NOT_NOALIAS_REASON, find_roots, is_binding_candidate

_MODULE = """target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @a(ptr addrspace(1) noalias %x, ptr addrspace(1) %y, i32 %n) {
  ret void
}

define amdgpu_kernel void @b(ptr addrspace(1) noalias %p, ptr addrspace(1) %q, i32 %m) {
  ret void
}

define amdgpu_kernel void @c(ptr addrspace(1) %x, ptr addrspace(1) noalias %y, ptr addrspace(3) noalias %s) {
  ret void
}

define amdgpu_kernel void @d(ptr byval(i32) %x, ptr addrspace(1) noalias %y, ptr addrspace(1) noalias %z) {
  ret void
}

define void @helper(ptr addrspace(1) noalias %x) {
  ret void
}

define amdgpu_kernel void @e(ptr addrspace(1) noalias %0, ptr addrspace(1) noalias %1) {
  ret void
}
"""


def _expected(fn, options: AnnotateOptions) -> tuple[list[int], dict[int, str]]:
    """The roots' indices and the reasons, read argument by argument (the long way)."""
    roots: list[int] = []
    why_not: dict[int, str] = {}
    for arg in fn.args:
        why = is_binding_candidate(arg)
        if why is not None:
            if arg.type.is_pointer:
                why_not[arg.index] = why
        elif options.args == "off":
            why_not[arg.index] = reasons.ARGS_OFF.text
        elif options.args == "auto" and "noalias" not in arg.attrs:
            why_not[arg.index] = NOT_NOALIAS_REASON
        else:
            roots.append(arg.index)
    return roots, why_not


@pytest.mark.parametrize("args", ["auto", "noalias", "off"])
@pytest.mark.parametrize("may_alias", [(), ((0, 1),)])
def test_roots_as_read_one_by_one(args: str, may_alias: tuple[tuple[int, ...], ...]) -> None:
    mod = parse_module(SourceFile("m.ll", _MODULE))
    options = AnnotateOptions(args=args, may_alias=may_alias)
    rs = find_roots(mod, options)
    kernels = [fn for fn in mod.functions if fn.is_kernel]
    assert sorted(rs.kernels) == sorted(fn.name for fn in kernels)
    for fn in kernels:
        ka = rs.kernels[fn.name]
        roots, why_not = _expected(fn, options)
        assert sorted(ka.roots) == roots, fn.name
        assert ka.not_rooted == why_not, fn.name
        assert list(ka.not_rooted) == list(why_not), fn.name  # (in argument order)
        for idx, root in ka.roots.items():
            assert root.domain == ka.domain
            assert fn.args[idx].name in root.members


def test_shared_signature_gives_each_kernel_its_own_roots() -> None:
    mod = parse_module(SourceFile("m.ll", _MODULE))
    rs = find_roots(mod, AnnotateOptions(args="auto"))
    a, b = rs.kernels["@a"], rs.kernels["@b"]
    assert list(a.roots) == [0] and list(b.roots) == [0]
    assert a.roots[0].name == "x" and b.roots[0].name == "p"
    assert a.roots[0].domain != b.roots[0].domain
    assert a.not_rooted == {1: NOT_NOALIAS_REASON} == b.not_rooted
    # an addrspace(3) pointer and a byval one are never roots, noalias or not
    assert rs.kernels["@c"].not_rooted[2] == reasons.LDS_OR_PRIVATE_POINTER.text
    assert 0 in rs.kernels["@d"].not_rooted and sorted(rs.kernels["@d"].roots) == [1, 2]
    assert [r.name for r in rs.kernels["@e"].roots.values()] == ["0", "1"]
    assert "@helper" not in rs.kernels


_SHAPED = "".join(
    f"define amdgpu_kernel void @{name}(ptr addrspace(1) noalias %a, ptr addrspace(1) %b, i32 %n, "
    f"ptr addrspace(3) noalias %s) {{\n  ret void\n}}\n\n" for name in ("k0", "k1", "k.2", "k3"))


@pytest.mark.parametrize("args", ["auto", "noalias", "off"])
def test_kernels_of_one_shape_as_read_one_by_one(args: str) -> None:
    # kernels read from one define line's shape share ``arg_shape``: find_roots reads their
    # arguments once, and each must still get what reading its own arguments gives
    mod = parse_module(SourceFile("m.ll", _SHAPED))
    kernels = mod.functions
    assert kernels[1].arg_shape is not None and kernels[1].arg_shape is kernels[3].arg_shape
    options = AnnotateOptions(args=args)
    rs = find_roots(mod, options)
    domains = set()
    for fn in kernels:
        ka = rs.kernels[fn.name]
        roots, why_not = _expected(fn, options)
        assert sorted(ka.roots) == roots, fn.name
        assert ka.not_rooted == why_not and list(ka.not_rooted) == list(why_not), fn.name
        assert ka.domain == "llnoalias.args." + fn.name[1:]
        domains.add(ka.domain)
        for idx, root in ka.roots.items():
            assert root.domain == ka.domain and root.members == (fn.args[idx].name,) and root.index == idx
            assert root.name == fn.args[idx].name[1:]
    assert len(domains) == len(kernels)
    # each kernel's tables are its own (a change to one is no change to another)
    first, second = rs.kernels["@k1"], rs.kernels["@k3"]
    assert first.not_rooted is not second.not_rooted
    assert all(first.roots[i] is not second.roots[i] for i in first.roots)
