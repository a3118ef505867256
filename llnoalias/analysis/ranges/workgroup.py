"""How many threads a work-group holds: the bound of ``tid.x/y/z`` for one function, read
as the code generators that may compile the module read it (design section 2b).

A bound that is too small is a miscompile (a thread id past it lands in a region that
claims not to hold it), so where the LLVM versions that may compile the module read the
attributes differently, the larger reading is the one used, and in doubt the target's
maximum. What each version reads, checked in LLVM's source and by compiling probes with
llc-19 and llvmlite 0.50's LLVM 22.1 (``tests/analysis/ranges/test_workgroup.py``):

- AMDGPU (LLVM 19 and 22 alike; ``AMDGPUSubtarget::getMaxWorkitemID``): a
  ``!reqd_work_group_size`` node of three integers gives each dimension's size (0 gives no
  bound, and ``0xffffffff`` none in LLVM 22); otherwise ``"amdgpu-flat-work-group-size"``'s
  maximum, only when the attribute is valid (``getFlatWorkGroupSizes``: both halves parse
  as unsigned integers, radix by prefix as ``StringRef::getAsInteger(0)`` reads it, and
  ``1 <= min <= max <= 1024``; otherwise the default 1..1024). The IR parser keeps the
  later of two values of one string attribute, and an attribute group's value over one
  written on the ``define``: the value kept is the last in the order inline attributes,
  then the groups as listed.
- NVPTX, kernels only: LLVM 19 reads ``maxntid{x,y,z}`` / ``reqntid{x,y,z}`` from
  ``!nvvm.annotations`` (the first of duplicates) and ignores the ``"nvvm.maxntid"`` /
  ``"nvvm.reqntid"`` attributes; LLVM 20 and later upgrade the annotations into those
  attributes (the last of duplicates wins, merged dimension by dimension into an
  attribute already there) and read the attributes. ``.maxntid`` bounds the product of
  the extents, ``.reqntid`` fixes each one. ``!reqd_work_group_size`` is read by neither.
"""

from __future__ import annotations

import re

from ... import shortcuts
from ...ir.lazyre import lazy
from ...ir.lexer import canon_name, tokenize
from ...ir.model import Function, Module

#: per-dimension maximum of the thread id count, by target family
TARGET_MAX = {"amdgpu": (1024, 1024, 1024), "nvptx": (1024, 1024, 64)}
_INT_PAIR_RE = lazy(r"\bi(\d+)\s+(-?\d+)")
_U32 = 0xFFFFFFFF


class WorkGroup:
    """Exclusive upper bounds of ``tid.x/y/z`` for one function, with where they came from."""

    def __init__(self, bounds: list[int | None], sources: list[str]) -> None:
        self.bounds = bounds
        self.sources = sources


def llvm_unsigned(text: str) -> int | None:
    """``text`` as LLVM's ``StringRef::getAsInteger(0, unsigned&)`` reads it (after
    ``trim()``): radix from the prefix (``0x``, ``0b``, ``0o``, a leading ``0`` is octal),
    every character a digit of it, at most 32 bits; None where LLVM fails."""
    s = text.strip(" \t\n\v\f\r")
    radix = 10
    low = s[:2].lower()
    if low == "0x":
        radix, s = 16, s[2:]
    elif low == "0b":
        radix, s = 2, s[2:]
    elif s[:2] == "0o":
        radix, s = 8, s[2:]
    elif len(s) > 1 and s[0] == "0" and s[1].isdigit():
        radix, s = 8, s[1:]
    if not s or not all(c.isascii() and c.isalnum() for c in s):
        return None
    try:
        v = int(s, radix)
    except ValueError:
        return None
    return v if v <= _U32 else None


def string_attribute(mod: Module, fn: Function, key: str) -> str | None:
    """The value LLVM's parser keeps for the string attribute ``key`` of ``fn``: the last
    one written, in the order the define's own attributes, then its attribute groups as
    listed (a group's value replaces an inline one; checked with ``opt-19 -S``)."""
    rx = re.compile(r'"' + re.escape(key) + r'"\s*=\s*"([^"]*)"')
    found: str | None = None
    for text in [fn.own_attrs_text, *(mod.attribute_group_text(g) for g in fn.fn_attr_groups)]:
        for m in rx.finditer(text):
            found = m.group(1)
    return found


def int_pair_values(node: str) -> list[str]:
    """The integer values of a metadata node's ``iN V`` pairs, as text."""
    body = node[node.find("!{"):] if "!{" in node else node
    return [m.group(2) for m in _INT_PAIR_RE.finditer(body)]


class WorkGroups:
    """The work-group bounds read in one module (``work_group``'s memo; one per
    ``analyses.FunctionAnalyses``): each function's, by name, and the AMDGPU bounds by the
    texts they are read from (``by_shape``), shared by functions spelled alike."""

    __slots__ = ("by_function", "by_shape")

    def __init__(self) -> None:
        self.by_function: dict[str, WorkGroup] = {}
        self.by_shape: Shapes = {}


def work_group(mod: Module, fn: Function, family: str, memo: WorkGroups | None = None) -> WorkGroup:
    """The work-group bounds of ``fn``; ``memo``: the bounds already read in this module,
    kept there (without one they are read again)."""
    if memo is not None:
        cached = memo.by_function.get(fn.name)
        if cached is not None:
            return cached
    tmax = TARGET_MAX.get(family)
    if tmax is None:
        wg = WorkGroup([None, None, None], ["no bound"] * 3)
    elif family == "amdgpu":
        # what the bounds are read from is the define's own attribute text and its groups
        # (the groups' texts and the metadata are the module's): functions spelled alike
        # there share one, found once in ``memo.by_shape``
        if memo is None or not shortcuts.ON["workgroup-shapes"]:
            wg = _amdgpu(mod, fn, tmax)
        else:
            shapes = memo.by_shape
            shape = (tmax, fn.own_attrs_text, fn.fn_attr_groups)
            got = shapes.get(shape)
            if got is None:
                got = shapes[shape] = _amdgpu(mod, fn, tmax)
            wg = got
    else:
        wg = _nvptx(mod, fn, tmax)
    if memo is not None:
        memo.by_function[fn.name] = wg
    return wg


#: AMDGPU bounds by what they are read from: (the target's maximum, the define's own
#: attribute text, its attribute groups), ``WorkGroups.by_shape``
Shapes = dict[tuple[tuple[int, int, int], str, tuple[str, ...]], WorkGroup]


# ------------------------------------------------------------------ AMDGPU


def flat_work_group_max(value: str | None) -> int | None:
    """The maximum of ``"amdgpu-flat-work-group-size"="min,max"`` where LLVM uses it
    (``AMDGPUSubtarget::getFlatWorkGroupSizes``), None where it falls back to 1..1024."""
    if value is None:
        return None
    first, _, second = value.partition(",")
    lo, hi = llvm_unsigned(first), llvm_unsigned(second)
    if lo is None or hi is None or lo > hi or lo < 1 or hi > 1024:
        return None
    return hi


def _reqd_sizes(mod: Module, fn: Function) -> list[int | None] | None:
    """``!reqd_work_group_size`` as ``getReqdWorkGroupSize`` reads it: None when absent or
    not three operands; per dimension the zero-extended value cut to 32 bits, or None when
    an operand is not an integer llnoalias can read."""
    m = re.search(r"!reqd_work_group_size\s+!(\d+)", fn.own_attrs_text)
    if m is None:
        return None
    node = mod.metadata_text(int(m.group(1))) or ""
    body = node[node.find("!{") + 2:node.rfind("}")] if "!{" in node else ""
    parts = [p.strip() for p in body.split(",")] if body.strip() else []
    if len(parts) != 3:
        return None
    out: list[int | None] = []
    for p in parts:
        pm = re.fullmatch(r"i(\d+)\s+(-?\d+)", p)
        if pm is None:
            out.append(None)
            continue
        bits, v = int(pm.group(1)), int(pm.group(2))
        out.append((v % (1 << bits)) & _U32 if bits > 0 else None)
    return out


def _amdgpu(mod: Module, fn: Function, tmax: tuple[int, int, int]) -> WorkGroup:
    bounds: list[int | None] = list(tmax)
    sources = ["amdgpu maximum"] * 3
    flat = flat_work_group_max(string_attribute(mod, fn, "amdgpu-flat-work-group-size"))
    reqd = _reqd_sizes(mod, fn)
    for d in range(3):
        size: int | None = flat
        src = "amdgpu-flat-work-group-size"
        if reqd is not None:
            r = reqd[d]
            if r is None or r == 0 or r == _U32:
                # LLVM 19 reads no bound for 0 (0 - 1 wraps) and the flat size for
                # 0xffffffff (its "absent"); LLVM 22 no bound for either (compiled probes)
                size = None
            else:
                size, src = r, "reqd_work_group_size"
        if size is not None and size < tmax[d]:
            bounds[d] = size
            sources[d] = src
    return WorkGroup(bounds, sources)


# ------------------------------------------------------------------ NVPTX


def _nvvm_annotations(mod: Module) -> dict[str, list[tuple[str, int]]]:
    """Every ``!nvvm.annotations`` key/value pair with an integer value, by function name,
    in the order LLVM meets them (the named node's operands, then each node's pairs); read
    once per module."""
    if mod.nvvm_thread_bounds is not None:
        return mod.nvvm_thread_bounds
    out: dict[str, list[tuple[str, int]]] = {}
    mod.nvvm_thread_bounds = out
    span = mod.named_metadata.get("nvvm.annotations")
    if span is None:
        return out
    text = mod.text[span[0]:span[1]]
    for mid_s in re.findall(r"!(\d+)", text[text.find("=") + 1:]):
        node = mod.metadata_text(int(mid_s))
        if node is None or ("ntid" not in node and "kernel" not in node):
            continue
        toks = [t for t in tokenize(node[node.find("!{"):] if "!{" in node else node)]
        fname = next((canon_name(t.text) for t in toks if t.kind == "global"), None)
        if fname is None:
            continue
        pairs = out.setdefault(fname, [])
        for i, t in enumerate(toks):
            if t.kind != "mdstring":
                continue
            key = t.text[2:-1]
            if re.fullmatch(r"(maxntid|reqntid)[xyz]|kernel", key) is None:
                continue
            # the value: the integer after the key's comma and type (`!"maxntidx", i32 64`)
            for t2 in toks[i + 1:i + 4]:
                if t2.kind == "int":
                    pairs.append((key, int(t2.text) & _U32))
                    break
    return out


def _extents(vals: list[int | None], exact: bool) -> list[int | None] | None:
    """Per-dimension bounds from a ``.maxntid`` (``exact`` False: the product bounds every
    dimension) or ``.reqntid`` (each extent fixed) of up to three extents; None when it
    gives none (absent, a 0, or a value LLVM cannot read)."""
    if not vals or any(v is None or v == 0 for v in vals):
        return None
    ext = [v for v in vals if v is not None] + [1] * (3 - len(vals))
    total = ext[0] * ext[1] * ext[2]
    return [min(ext[d], total) if exact else total for d in range(3)]


def _min_bounds(a: list[int | None] | None, b: list[int | None] | None) -> list[int | None] | None:
    if a is None:
        return b
    if b is None:
        return a
    return [x if y is None else (y if x is None else min(x, y)) for x, y in zip(a, b, strict=True)]


def _reading_19(pairs: list[tuple[str, int]], cc_kernel: bool) -> list[int | None] | None:
    """LLVM 19: annotations only, the first value of each key; a kernel by the first
    ``kernel`` annotation, else by the calling convention."""
    first: dict[str, int] = {}
    for k, v in pairs:
        first.setdefault(k, v)
    kernel = first["kernel"] == 1 if "kernel" in first else cc_kernel
    if not kernel:
        return None
    out: list[int | None] | None = None
    for kind, exact in (("maxntid", False), ("reqntid", True)):
        dims = [first.get(kind + d) for d in "xyz"]
        if any(v is not None for v in dims):
            out = _min_bounds(out, _extents([1 if v is None else v for v in dims], exact))
    return out


def _reading_20(mod: Module, fn: Function, pairs: list[tuple[str, int]], cc_kernel: bool) -> list[int | None] | None:
    """LLVM 20 and later: the annotations upgraded into ``"nvvm.maxntid"`` /
    ``"nvvm.reqntid"`` (each annotation, in order, sets its dimension of the attribute
    there; a kernel annotation that is not 0 makes the function a ``ptx_kernel``), then
    the attributes read as ``x[,y[,z]]``."""
    kernel = cc_kernel or any(k == "kernel" and v != 0 for k, v in pairs)
    if not kernel:
        return None
    out: list[int | None] | None = None
    for kind, exact in (("maxntid", False), ("reqntid", True)):
        attr = string_attribute(mod, fn, "nvvm." + kind)
        vect: list[str] = ["1", "1", "1"]
        length = 0
        if attr is not None:
            got = attr.split(",")[:3] if attr else []
            for i, s in enumerate(got):
                vect[i] = s
            length = len(got)
        for k, v in pairs:
            if k.startswith(kind):
                d = "xyz".index(k[-1])
                vect[d] = str(v)
                length = max(length, d + 1)
        if length == 0:
            continue
        out = _min_bounds(out, _extents([llvm_unsigned(s) for s in vect[:length]], exact))
    return out


def _nvptx(mod: Module, fn: Function, tmax: tuple[int, int, int]) -> WorkGroup:
    pairs = _nvvm_annotations(mod).get(fn.name, [])
    cc_kernel = fn.cc == "ptx_kernel"
    readings = (_reading_19(pairs, cc_kernel), _reading_20(mod, fn, pairs, cc_kernel))
    bounds: list[int | None] = list(tmax)
    sources = ["nvptx maximum"] * 3
    if readings[0] is None or readings[1] is None:
        return WorkGroup(bounds, sources)
    for d in range(3):
        b19, b20 = readings[0][d], readings[1][d]
        if b19 is None or b20 is None:
            continue
        size = max(b19, b20)
        if size < tmax[d]:
            bounds[d] = size
            sources[d] = ("!nvvm.annotations / nvvm attributes (LLVM 19 reads "
                          f"{b19}, LLVM 20+ {b20})" if b19 != b20 else "!nvvm.annotations / nvvm attributes")
    return WorkGroup(bounds, sources)


__all__ = ["TARGET_MAX", "WorkGroup", "flat_work_group_max", "int_pair_values", "llvm_unsigned",
           "string_attribute", "work_group"]
