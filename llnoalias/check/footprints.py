"""The LDS bytes each IR access of a module may touch, for ``check`` (design section 4b).

An access's footprint is a range of bytes in one *space*: ``dyn``, the dynamic LDS block that
every external zero-sized ``addrspace(3)`` global starts at (LLVM's module-LDS lowering puts
them all at one address), or one static (sized) global, which the lowering places apart from
every other. The range comes from the analysis llnoalias already has: provenance traces the
pointer to a global (every ``addrspace(3)`` global and every kernel pointer argument is a root
here, whatever the annotate options: a pointer traced to an argument is global memory), the range solver bounds its byte offset over every thread, and ``regions.extent``
widens it by what the access touches; an LDS-DMA by every lane of the wave at its immediate
offset. Whatever is not known is wider: a global whose offset is not bounded is all of its
space, and a pointer not traced to a global is all of LDS (``ALL``). Accesses that cannot reach
LDS have no footprint.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..analysis.memory.accesses import Access, find_accesses, module_family, reaches_lds
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..analysis.provenance.solver import ModuleAnalysis
from ..analysis.ranges.solver import FunctionRanges, Off
from ..ir.datalayout import layout_of
from ..ir.model import Function, LocalRef, Module
from ..options import AnnotateOptions
from ..transform.regions import ADDRESS_LIMIT, extent
from ..transform.roots import find_roots

#: the space of a footprint that may be any byte of LDS
ALL = "*"
#: the dynamic LDS block
DYN = "dyn"


@dataclass(frozen=True, slots=True)
class Footprint:
    """Bytes ``[lo, hi)`` of ``space`` (every byte of LDS when ``space`` is ``ALL``)."""

    space: str
    lo: int = 0
    hi: int = ADDRESS_LIMIT

    def meets(self, other: Footprint) -> bool:
        if self.space == ALL or other.space == ALL:
            return True
        return self.space == other.space and self.lo < other.hi and other.lo < self.hi

    def widened(self, before: int, after: int) -> Footprint:
        if self.space == ALL:
            return self
        return Footprint(self.space, self.lo - before, self.hi + after)

    def __str__(self) -> str:
        if self.space == ALL:
            return "any byte of LDS"
        where = "the dynamic LDS block" if self.space == DYN else self.space
        if self.lo <= 0 and self.hi >= ADDRESS_LIMIT:
            return f"any byte of {where}"
        return f"bytes [{self.lo}, {self.hi}) of {where}"


EVERYWHERE = Footprint(ALL)


@dataclass(frozen=True, slots=True)
class IRAccess:
    """One IR instruction that may touch LDS: where it is and what it may touch."""

    function: str
    line: int
    col: int
    kind: str  # load, store, atomicrmw, cmpxchg, call
    intrinsic: str | None
    is_dma: bool
    footprint: Footprint
    text: str
    #: the bytes one thread touches at its address (0: not known)
    size: int = 0


def _space(mod: Module, root: Root) -> str:
    g = mod.globals.get(root.name) or mod.globals.get(root.members[0] if root.members else "")
    if g is None:
        return ALL
    return DYN if g.is_zero_sized else g.name


def module_footprints(mod: Module) -> dict[int, IRAccess]:
    """Every IR access of ``mod`` that may touch LDS, by its line in the input."""
    roots = find_roots(mod, AnnotateOptions(lds="all", args="noalias"))
    ma = ModuleAnalysis(mod, roots)
    out = _all_functions(mod, ma)
    if ma.settle():  # memory may hold addresses: every result so far is void
        out = _all_functions(mod, ma)
    return out


def _all_functions(mod: Module, ma: ModuleAnalysis) -> dict[int, IRAccess]:
    out: dict[int, IRAccess] = {}
    family = module_family(mod)
    old = sys.getrecursionlimit()
    if old < 20000:
        sys.setrecursionlimit(20000)
    try:
        for fn in mod.functions:
            if fn.instrs:
                for acc in _function(mod, ma, fn, family):
                    out[acc.line] = acc
    finally:
        sys.setrecursionlimit(old)
    return out


def _function(mod: Module, ma: ModuleAnalysis, fn: Function, family: str) -> list[IRAccess]:
    from ..analysis.memory.intrinsics import lds_dma

    accesses = [a for a in find_accesses(mod, fn)
                if any(p.type.addrspace < 0 or reaches_lds(family, p.type.addrspace) for p in a.pointers)
                or lds_dma(a.intrinsic) is not None]
    if not accesses:
        return []
    fa = ma.function(fn)
    fa.solve([p.value.name for a in accesses for p in a.pointers if isinstance(p.value, LocalRef)])
    dl = layout_of(mod)
    fr = FunctionRanges(mod, fn, fa, family, dl)
    text = mod.text
    starts = mod.source.line_starts
    got: list[IRAccess] = []
    for acc in accesses:
        fp = _footprint(mod, fa, fr, dl, acc, family)
        if fp is None:
            continue
        size = 0
        if acc.pointers and not acc.intrinsic:
            ext = extent(mod, fr, dl, acc, acc.pointers[0])
            size = 0 if isinstance(ext, str) else ext[1] - ext[0]
        inst = acc.inst
        line = inst.line
        code = text[inst.start:inst.end]
        col = inst.start - starts[line - 1] + 1 + len(code) - len(code.lstrip())
        got.append(IRAccess(fn.name, line, col, acc.kind, acc.intrinsic, lds_dma(acc.intrinsic) is not None, fp,
                            code.strip(), size))
    return got


def _footprint(mod: Module, fa: object, fr: FunctionRanges, dl: object, acc: Access,
               family: str) -> Footprint | None:
    """The union of what ``acc``'s LDS pointers may touch; None when none may reach LDS."""
    from ..analysis.provenance.solver import FunctionAnalysis

    assert isinstance(fa, FunctionAnalysis)
    found: Footprint | None = None
    for p in acc.pointers:
        space = p.type.addrspace
        if space >= 0 and not reaches_lds(family, space):
            continue
        value = fa.value(p.value)
        if isinstance(value, Root) and value.domain != LDS_DOMAIN:
            continue  # a kernel argument's buffer: global memory
        if not isinstance(value, Root):
            return EVERYWHERE  # not traced (a flat pointer of unknown provenance may be LDS)
        where = _space(mod, value)
        if where == ALL:
            return EVERYWHERE
        fp = Footprint(where)
        off = fr.offset(p.type, p.value)
        if isinstance(off, Off) and off.root is value:
            ext = extent(mod, fr, dl, acc, p)  # type: ignore[arg-type]
            if not isinstance(ext, str):
                fp = Footprint(where, off.lo + ext[0], off.hi + ext[1])
        if found is None:
            found = fp
        elif found.space != fp.space:
            return EVERYWHERE
        else:
            found = Footprint(found.space, min(found.lo, fp.lo), max(found.hi, fp.hi))
    return found


__all__ = ["ALL", "DYN", "EVERYWHERE", "Footprint", "IRAccess", "module_footprints"]
