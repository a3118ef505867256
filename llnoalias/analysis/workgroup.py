"""How many threads a work-group holds: the bound of ``tid.x/y/z`` for one function.

From ``amdgpu-flat-work-group-size``, ``!reqd_work_group_size``, ``"nvvm.maxntid"`` /
``"nvvm.reqntid"`` and ``!nvvm.annotations``, else the target's maximum.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ir.lazyre import lazy
from ..ir.lexer import canon_name, tokenize
from ..ir.model import Function, Module

#: per-dimension maximum of the thread id count, by target family
TARGET_MAX = {"amdgpu": (1024, 1024, 1024), "nvptx": (1024, 1024, 64)}
_INT_PAIR_RE = lazy(r"\bi(\d+)\s+(-?\d+)")


class WorkGroup:
    """Exclusive upper bounds of ``tid.x/y/z`` for one function, with where they came from."""

    def __init__(self, bounds: list[int | None], sources: list[str]) -> None:
        self.bounds = bounds
        self.sources = sources


def _attr_texts(mod: Module, fn: Function, own: str) -> str:
    parts = [own]
    for g in fn.fn_attr_groups:
        parts.append(mod.attribute_group_text(g))
    return "\n".join(parts)


def _ints_of(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def work_group(mod: Module, fn: Function, family: str) -> WorkGroup:
    cached = getattr(fn, "_llnoalias_wg", None)
    if isinstance(cached, WorkGroup):
        return cached
    tmax = TARGET_MAX.get(family)
    bounds: list[int | None] = list(tmax) if tmax else [None, None, None]
    sources = [f"{family} maximum"] * 3 if tmax else ["no bound"] * 3

    def cap(dim: int, n: int, src: str) -> None:
        if n <= 0:
            return
        cur = bounds[dim]
        if cur is None or n < cur:
            bounds[dim] = n
            sources[dim] = src

    own = fn.own_attrs_text
    text = _attr_texts(mod, fn, own)
    m = re.search(r'"amdgpu-flat-work-group-size"\s*=\s*"\s*(\d+)\s*,\s*(\d+)\s*"', text)
    if m:
        for d in range(3):
            cap(d, int(m.group(2)), "amdgpu-flat-work-group-size")
    m = re.search(r"!reqd_work_group_size\s+!(\d+)", own)
    if m:
        node = mod.metadata_text(int(m.group(1))) or ""
        vals = [int(x) for x in int_pair_values(node)]
        if len(vals) == 3:
            for d in range(3):
                cap(d, vals[d], "reqd_work_group_size")
    for key, exact in (("nvvm.maxntid", False), ("nvvm.reqntid", True)):
        m = re.search(r'"' + re.escape(key) + r'"\s*=\s*"([^"]*)"', text)
        if m:
            vals = [v for v in _ints_of(m.group(1)) if v > 0][:3]
            if vals:
                _nv_bounds(vals, exact, key, cap)
    _nvvm_annotations(mod, fn, cap)
    wg = WorkGroup(bounds, sources)
    try:
        fn._llnoalias_wg = wg  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return wg


def int_pair_values(node: str) -> list[str]:
    """The integer values of a metadata node's ``iN V`` pairs, as text."""
    body = node[node.find("!{"):] if "!{" in node else node
    return [m.group(2) for m in _INT_PAIR_RE.finditer(body)]


def _nv_bounds(vals: list[int], exact: bool, src: str, cap: Callable[[int, int, str], None]) -> None:
    """PTX ``.maxntid``/``.reqntid``: the block holds at most the product of the given
    extents (missing ones are 1); ``.reqntid`` also fixes each given dimension."""
    total = 1
    for v in vals:
        total *= v
    for d in range(3):
        if exact and d < len(vals):
            cap(d, vals[d], src)
        cap(d, total, src)


def _nvvm_thread_bounds(mod: Module) -> dict[str, dict[str, dict[str, int]]]:
    """``maxntid``/``reqntid`` extents by kernel name, read from ``!nvvm.annotations``
    once per module (a module lists every kernel there)."""
    if mod.nvvm_thread_bounds is not None:
        return mod.nvvm_thread_bounds
    out: dict[str, dict[str, dict[str, int]]] = {}
    mod.nvvm_thread_bounds = out
    span = mod.named_metadata.get("nvvm.annotations")
    if span is None:
        return out
    text = mod.text[span[0]:span[1]]
    for mid_s in re.findall(r"!(\d+)", text[text.find("=") + 1:]):
        node = mod.metadata_text(int(mid_s))
        if node is None or ("maxntid" not in node and "reqntid" not in node):
            continue
        toks = [t for t in tokenize(node[node.find("!{"):] if "!{" in node else node)]
        fname = next((canon_name(t.text) for t in toks if t.kind == "global"), None)
        if fname is None:
            continue
        found = out.setdefault(fname, {"maxntid": {}, "reqntid": {}})
        for i, t in enumerate(toks):
            if t.kind == "mdstring":
                key = t.text[2:-1]
                km = re.fullmatch(r"(maxntid|reqntid)([xyz])", key)
                if km is None:
                    continue
                for t2 in toks[i + 1:i + 4]:
                    if t2.kind == "int":
                        found[km.group(1)][km.group(2)] = int(t2.text)
                        break
    return out


def _nvvm_annotations(mod: Module, fn: Function, cap: Callable[[int, int, str], None]) -> None:
    found = _nvvm_thread_bounds(mod).get(fn.name)
    if found is None:
        return
    for kind, dims in found.items():
        if not dims:
            continue
        vals = [dims.get(d, 1) for d in "xyz"]
        if any(v <= 0 for v in vals):
            continue
        total = vals[0] * vals[1] * vals[2]
        for d, dname in enumerate("xyz"):
            if kind == "reqntid" and dname in dims:
                cap(d, vals[d], "!nvvm.annotations reqntid")
            cap(d, total, f"!nvvm.annotations {kind}")


# ------------------------------------------------------------------ the analysis


__all__ = ["TARGET_MAX", "WorkGroup", "int_pair_values", "work_group"]
