"""The model's per-function and per-global records have ``__slots__``: no ``__dict__`` (a
module of 20,000 small kernels keeps 20,000 Functions and their Arguments to the end), so
no attribute of one's own can be hung on them; equality and ``repr`` are still by field."""

from __future__ import annotations

import copy

import pytest

from llnoalias.ir import model
from llnoalias.ir.parser import parse_module
from llnoalias.ir.source import SourceFile

TEXT = """\
@g = addrspace(1) global i32 0
declare void @d()

define amdgpu_kernel void @k(ptr addrspace(1) noalias %a, i32 %n) {
  %x = load i32, ptr addrspace(1) %a, align 4, !tbaa !0
  ret void
}

!0 = !{!"int"}
"""

SLOTTED = (model.Function, model.Argument, model.Global, model.Declaration, model.MetadataNode)


def _objects() -> list[object]:
    mod = parse_module(SourceFile("m.ll", TEXT))
    fn = mod.functions[0]
    node = mod.metadata_node(0)
    assert node is not None
    return [fn, *fn.args, mod.globals["@g"], mod.declarations["@d"], node]


def test_no_dict() -> None:
    objs = _objects()
    assert {type(o) for o in objs} == set(SLOTTED)
    for o in objs:
        assert not hasattr(o, "__dict__"), type(o).__name__
        with pytest.raises(AttributeError):
            o._llnoalias_cache = 1  # type: ignore[attr-defined]


def test_every_field_is_a_slot_or_a_property() -> None:
    for cls in SLOTTED:
        for name in cls._FIELDS:
            assert name in cls.__slots__ or isinstance(getattr(cls, name), property), (cls.__name__, name)


def test_equality_and_repr_by_field() -> None:
    """A copy (``copy.copy`` reads the slots) equals its original until one field differs."""
    for x in _objects():
        y = copy.copy(x)
        assert y is not x and y == x and repr(y) == repr(x)
        name = type(x)._FIELDS[1]  # line, index or start: an int
        setattr(y, name, getattr(x, name) + 1)
        assert y != x
    fn = _objects()[0]
    assert isinstance(fn, model.Function)
    assert "name='@k'" in repr(fn) and fn.as_dict()["name"] == "@k"
