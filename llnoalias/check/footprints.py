"""The LDS bytes each IR access of a module may touch, for ``check`` (design section 4b).

An access's footprint is a range of bytes in one *space*: ``dyn``, the dynamic LDS block that
every external zero-sized ``addrspace(3)`` global starts at (LLVM's module-LDS lowering puts
them all at one address), or one static (sized) global, which the lowering places apart from
every other. The range comes from the analysis llnoalias already has: provenance traces the
pointer to a global (every ``addrspace(3)`` global and every kernel pointer argument is a root
here, whatever the annotate options: a pointer traced to an argument is global memory), the range solver bounds its byte offset over every thread, and ``analysis.ranges.footprints.extent``
widens it by what the access touches; an LDS-DMA by every lane of the wave at its immediate
offset. Whatever is not known is wider: a global whose offset is not bounded is all of its
space, and a pointer not traced to a global is all of LDS (``ALL``). Accesses that cannot reach
LDS have no footprint.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from ..analysis.memory.accesses import Access, find_accesses
from ..analysis.memory.intrinsics import async_lds, lds_dma
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..analysis.provenance.solver import FunctionAnalysis, ModuleAnalysis
from ..analysis.ranges.analyses import FunctionAnalyses
from ..analysis.ranges.footprints import ADDRESS_LIMIT, extent
from ..analysis.ranges.solver import FunctionRanges, Off
from ..ir import operands as opparse
from ..ir.datalayout import DataLayout
from ..ir.facts import reaches_lds
from ..ir.model import Function, GlobalRef, LocalRef, Module, ModuleFacts
from ..options import AnnotateOptions
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
    #: a folded line (``kind == "folded"``): the lines of the LDS loads it stands for
    sources: tuple[int, ...] = ()
    #: the IR block it is in (its index in the function)
    block: int = -1


def _space(facts: ModuleFacts, root: Root) -> str:
    """The space of an LDS root: the dynamic block for a dynamic LDS variable, its own name
    for a static one (the module's facts say which), else all of LDS."""
    name = root.name if root.name in facts.static_lds or root.name in facts.dynamic_lds else (
        root.members[0] if root.members else "")
    if name in facts.dynamic_lds:
        return DYN
    return name if name in facts.static_lds else ALL


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
    family = mod.facts.family
    old = sys.getrecursionlimit()
    if old < 20000:
        sys.setrecursionlimit(20000)
    analyses = FunctionAnalyses(ma)
    try:
        for fn in mod.functions:
            if fn.instrs:
                for acc in _function(mod, analyses, fn, family):
                    out[acc.line] = acc
    finally:
        sys.setrecursionlimit(old)
    return out


def _function(mod: Module, analyses: FunctionAnalyses, fn: Function, family: str) -> list[IRAccess]:
    accesses = [a for a in find_accesses(mod, fn)
                if any(p.type.addrspace < 0 or reaches_lds(family, p.type.addrspace) for p in a.pointers)
                or lds_dma(a.intrinsic) is not None]
    others = _other_async(mod, fn, {a.inst.line for a in accesses})
    if not others and not any(lds_dma(a.intrinsic) is not None for a in accesses):
        return []  # nothing can race in a function without an asynchronous LDS operation
    fa = analyses.provenance(fn)
    fa.solve([p.value.name for a in accesses for p in a.pointers if isinstance(p.value, LocalRef)])
    dl = mod.facts.layout
    fr = analyses.ranges(fn, fa)
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
                            code.strip(), size, block=inst.block))
    got.extend(others)
    got.extend(_folded(mod, fn, got))
    return got


def _other_async(mod: Module, fn: Function, taken: set[int]) -> list[IRAccess]:
    """The asynchronous LDS operations of ``ASYNC_LDS`` that are no access of the tagging
    tables (the tensor data mover, gfx1250's cluster loads and stores from LDS): what they touch is
    read per thread by ``check.exact`` (a descriptor) or not at all; here, any byte of LDS."""
    text = mod.text
    starts = mod.source.line_starts
    out: list[IRAccess] = []
    for inst in fn.instrs:
        if inst.opcode != "call" or inst.line in taken or "lds" not in text[inst.opstart:inst.end]:
            continue
        callee = opparse.parse(mod, inst).callee
        name = callee.name.lstrip("@") if isinstance(callee, GlobalRef) else ""
        if async_lds(name) is None:
            continue
        code = text[inst.start:inst.end]
        col = inst.start - starts[inst.line - 1] + 1 + len(code) - len(code.lstrip())
        out.append(IRAccess(fn.name, inst.line, col, "call", name, True, EVERYWHERE, code.strip(), block=inst.block))
    return out


#: a local name among an instruction's operands
_LOCAL = re.compile(r'%(?:[-a-zA-Z$._0-9]+|"[^"]*")')
#: how far back through operands a folded instruction is traced to the load it was folded with
FOLD_DEPTH = 3
#: instructions that only move elements (a vector built from loads): traced through at no depth
_MOVES = frozenset(("shufflevector", "insertelement", "extractelement", "bitcast"))


def _folded(mod: Module, fn: Function, accesses: list[IRAccess]) -> list[IRAccess]:
    """Footprints for the lines of instructions an LDS load may have been folded into.

    Instruction selection folds a load with the instructions that use it (a bitcast, an
    extract, a conversion) into one machine instruction, whose debug location may be the
    user's. Such a line gets the union of the footprints of the LDS loads among its operands,
    up to ``FOLD_DEPTH`` instructions back, through any number of instructions that only move
    elements (a vector built by shuffles of byte loads takes the line of its last shuffle); a mix
    of LDS spaces: all of LDS."""
    loads = {a.line: a for a in accesses if not a.is_dma and a.kind in ("load", "call")}
    if not loads:
        return []
    text = mod.text
    line_of = _lines_of(mod, fn)
    by_line = {line_of[id(inst)]: inst for inst in fn.instrs}
    taken = {a.line for a in accesses}
    out: list[IRAccess] = []
    for inst in fn.instrs:
        line = line_of[id(inst)]
        if line in taken or inst.opcode in ("store", "load", "call", "phi", "br", "ret"):
            continue
        code = text[inst.opstart:inst.end].split(", !", 1)[0]
        found: list[IRAccess] = []
        seen: set[str] = set()
        todo = [(m.group(0), 1) for m in _LOCAL.finditer(code)]
        while todo:
            name, depth = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            d = fn.by_name.get(name)
            if d is None:
                continue
            dline = line_of[id(d)]
            acc = loads.get(dline) if by_line.get(dline) is d else None
            if acc is not None:
                found.append(acc)
                continue
            if d.opcode in _MOVES or (depth < FOLD_DEPTH and d.opcode not in ("load", "call", "phi", "store")):
                sub = text[d.opstart:d.end].split(", !", 1)[0]
                step = 0 if d.opcode in _MOVES else 1
                todo.extend((m.group(0), depth + step) for m in _LOCAL.finditer(sub))
        if not found:
            continue
        fp = found[0].footprint
        for a in found[1:]:
            fp = union(fp, a.footprint)
        out.append(IRAccess(fn.name, line, 0, "folded", None, False, fp, found[0].text,
                            max(a.size for a in found), tuple(sorted({a.line for a in found})), inst.block))
    return out


def _lines_of(mod: Module, fn: Function) -> dict[int, int]:
    """Each instruction's line, found in one walk down the function (``Instruction.line``
    searches the line table each time)."""
    starts = mod.source.line_starts
    out: dict[int, int] = {}
    line = 0
    n = len(starts)
    for inst in sorted(fn.instrs, key=lambda i: i.start):
        while line < n and starts[line] <= inst.start:
            line += 1
        out[id(inst)] = line
    return out


def union(a: Footprint, b: Footprint) -> Footprint:
    if a.space == ALL or b.space == ALL or a.space != b.space:
        return EVERYWHERE
    return Footprint(a.space, min(a.lo, b.lo), max(a.hi, b.hi))


def _footprint(mod: Module, fa: FunctionAnalysis, fr: FunctionRanges, dl: DataLayout, acc: Access,
               family: str) -> Footprint | None:
    """The union of what ``acc``'s LDS pointers may touch; None when none may reach LDS."""
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
        where = _space(mod.facts, value)
        if where == ALL:
            return EVERYWHERE
        fp = Footprint(where)
        off = fr.offset(p.type, p.value)
        if isinstance(off, Off) and off.root is value:
            ext = extent(mod, fr, dl, acc, p)
            if not isinstance(ext, str):
                fp = Footprint(where, off.lo + ext[0], off.hi + ext[1])
        found = fp if found is None else union(found, fp)
    return found


__all__ = ["ALL", "DYN", "EVERYWHERE", "Footprint", "IRAccess", "module_footprints", "union"]
