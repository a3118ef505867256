"""Races between LDS-DMAs and LDS accesses, judged in the assembly (design section 4b).

``judge`` takes the assembly the code generator wrote for a located copy of the module
(``locate``), the IR accesses' footprints (``footprints``) and replays each wave's in-order
vector-memory queue over the assembly's control flow (``asm.queue``). A race is an LDS
instruction that some path reaches while an LDS-DMA whose bytes it may touch is still in the
queue; or one the code generator moved above an LDS-DMA that precedes it in the same IR
block while their bytes may meet. Every instruction of the assembly is mapped back to the IR line its ``.loc`` names; an
instruction without one, or one whose line is no LDS access of the input, may touch any byte
of LDS. Every ``vmcnt`` wait is given its cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..asm.queue import Replay, replay
from ..asm.reader import AsmFunction, AsmInst, read_amdgpu, target_generation
from .footprints import EVERYWHERE, Footprint, IRAccess, union

#: the bytes one element of a ``ds_read2``/``ds_write2`` offset counts
_ELEM = {"b32": 4, "b64": 8}


@dataclass(frozen=True, slots=True)
class Place:
    """An instruction of the assembly and the IR line it came from (0: not known)."""

    asm_line: int
    asm_text: str
    ir_line: int
    ir_col: int

    def to_json(self) -> dict[str, object]:
        return {"asm_line": self.asm_line, "asm": self.asm_text, "line": self.ir_line, "col": self.ir_col}


@dataclass(frozen=True, slots=True)
class Race:
    """An LDS access some path reaches with an LDS-DMA that may write its bytes in flight."""

    function: str
    dma: Place
    access: Place
    path: tuple[str, ...]
    dma_bytes: Footprint
    access_bytes: Footprint
    #: the code generator put the access above the DMA that comes first in the IR: it reads
    #: (or writes) the bytes before the DMA writes them
    moved: bool = False

    def to_json(self) -> dict[str, object]:
        return {"function": self.function, "dma": self.dma.to_json(), "access": self.access.to_json(),
                "path": list(self.path), "dma_bytes": str(self.dma_bytes), "access_bytes": str(self.access_bytes),
                "moved": self.moved}


#: why a wait is there
CAUSES = ("needed", "barrier", "producer", "none")


@dataclass(frozen=True, slots=True)
class Wait:
    """One ``vmcnt`` wait of the assembly and why it is there."""

    function: str
    at: Place
    value: int
    cause: str
    retires: tuple[Place, ...]
    needed_by: Place | None

    def to_json(self) -> dict[str, object]:
        return {"function": self.function, "at": self.at.to_json(), "vmcnt": self.value, "cause": self.cause,
                "retires": [p.to_json() for p in self.retires],
                "needed_by": None if self.needed_by is None else self.needed_by.to_json()}


@dataclass(slots=True)
class FunctionVerdict:
    name: str
    races: list[Race] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    dmas: int = 0
    lds: int = 0
    #: LDS and DMA instructions whose IR line is not known (they may touch any byte)
    unmapped: int = 0

    @property
    def clean(self) -> bool:
        return not self.races


def _place(inst: AsmInst) -> Place:
    return Place(inst.line, inst.text, inst.ir_line, inst.ir_col)


def _widening(inst: AsmInst, acc: IRAccess) -> int:
    """How far an LDS instruction may reach past the IR access it is mapped to: a
    ``ds_read2``/``ds_write2`` merges two accesses at two offsets (the mapped one is one of
    them), a wider instruction than the access merges neighbours."""
    m = inst.mnemonic
    reach = 0
    if m.startswith(("ds_read2", "ds_write2", "ds_load_2", "ds_store_2")):
        offs = list(inst.offsets)
        if len(offs) >= 2:
            elem = next((v for k, v in _ELEM.items() if m.endswith(k)), 8)
            unit = elem * 64 if "st64" in m else elem
            reach += (max(offs) - min(offs)) * unit
    if inst.width and acc.size and inst.width > acc.size:
        reach += inst.width - acc.size
    return reach


def footprint_of(inst: AsmInst, accesses: dict[int, IRAccess], unclaimed: Footprint = EVERYWHERE) -> Footprint:
    """What an LDS instruction or LDS-DMA of the assembly may touch (``unclaimed``: what an
    LDS instruction without an IR line of its own may, see ``_unclaimed``)."""
    acc = accesses.get(inst.ir_line) if inst.ir_line else None
    if acc is None:
        return unclaimed if inst.kind == "lds" and not inst.ir_line else EVERYWHERE
    if inst.kind == "dma":
        return acc.footprint if acc.is_dma else EVERYWHERE
    reach = _widening(inst, acc)
    return acc.footprint.widened(reach, reach) if reach else acc.footprint


def _unclaimed(fn: AsmFunction, accesses: dict[int, IRAccess], write: bool | None) -> Footprint:
    """What an LDS instruction at line 0 may touch. LLVM gives an instruction that merges two
    (``ds_read2``, ``ds_write2``) of different lines the merged location, line 0: it stands for
    IR accesses of its function that no instruction of the assembly names, of its direction
    (reads, writes; atomics and calls both). The union of their footprints; every byte of LDS
    when there are none."""
    names = {f"@{fn.name}", f'@"{fn.name}"'}
    claimed: set[int] = set()
    for inst in fn.insts:
        if inst.ir_line:
            claimed.add(inst.ir_line)
            acc = accesses.get(inst.ir_line)
            if acc is not None:
                claimed.update(acc.sources)
    fp: Footprint | None = None
    for acc in accesses.values():
        if acc.function not in names or acc.is_dma or acc.kind == "folded" or acc.line in claimed:
            continue
        if write is not None and acc.kind in ("load", "store") and (acc.kind == "store") != write:
            continue
        fp = acc.footprint if fp is None else union(fp, acc.footprint)
    return EVERYWHERE if fp is None else fp


def _judged(inst: AsmInst, accesses: dict[int, IRAccess]) -> bool:
    """Is the instruction an LDS access the check judges? Every ``ds_`` access; a flat
    access only where its IR access is traced to an LDS variable."""
    if inst.kind == "lds":
        return True
    if getattr(inst, "may_lds", False) and inst.ir_line:
        acc = accesses.get(inst.ir_line)
        return acc is not None and acc.footprint is not EVERYWHERE and not acc.is_dma
    return False


def judge_function(fn: AsmFunction, generation: int, accesses: dict[int, IRAccess]) -> FunctionVerdict:
    v = FunctionVerdict(fn.name)
    insts = fn.insts
    rp = replay(fn, generation)
    fps: dict[int, Footprint] = {}
    lost: dict[bool | None, Footprint] = {}
    for inst in insts:
        if inst.kind == "dma" or _judged(inst, accesses):
            if inst.kind == "lds" and not inst.ir_line and inst.lds_write not in lost:
                lost[inst.lds_write] = _unclaimed(fn, accesses, inst.lds_write)
            fps[inst.index] = footprint_of(inst, accesses, lost.get(inst.lds_write, EVERYWHERE))
            if inst.kind == "dma":
                v.dmas += 1
            else:
                v.lds += 1
            if not inst.ir_line or inst.ir_line not in accesses:
                v.unmapped += 1
    seen: set[tuple[int, int]] = set()
    for inst in insts:
        if inst.kind == "dma" or inst.index not in fps:
            continue
        pending = rp.pending_dmas(inst.index)
        for d in sorted(pending):
            dfp = fps.get(d)
            if dfp is None or not dfp.meets(fps[inst.index]):
                continue
            key = (insts[d].ir_line or -insts[d].line, inst.ir_line or -inst.line)
            if key in seen:
                continue
            seen.add(key)
            v.races.append(Race(fn.name, _place(insts[d]), _place(inst), tuple(rp.path(d, inst.index)), dfp,
                                fps[inst.index]))
    for d, a in _moved_above(fn, accesses, fps):
        key = (insts[d].ir_line, insts[a].ir_line)
        if key not in seen:
            seen.add(key)
            v.races.append(Race(fn.name, _place(insts[d]), _place(insts[a]), (), fps[d], fps[a], moved=True))
    v.waits = _waits(fn, rp, fps)
    return v


def _moved_above(fn: AsmFunction, accesses: dict[int, IRAccess], fps: dict[int, Footprint]) -> list[tuple[int, int]]:
    """(DMA, access) pairs of one IR block, the DMA first, whose instructions the code generator
    put the other way round in one block of the assembly while their bytes may meet: the access
    no longer sees what the DMA writes (alias analysis told them apart by one lane's window)."""
    out: list[tuple[int, int]] = []
    for blk in fn.blocks:
        dmas: list[int] = []
        for i in range(blk.last, blk.first - 1, -1):  # walking up: the DMAs below come first
            inst = fn.insts[i]
            if i not in fps or not inst.ir_line:
                continue
            ir = accesses.get(inst.ir_line)
            if ir is None:
                continue
            if inst.kind == "dma":
                dmas.append(i)
                continue
            for d in dmas:
                dma_ir = accesses.get(fn.insts[d].ir_line)
                if (dma_ir is not None and dma_ir.block == ir.block and dma_ir.function == ir.function
                        and dma_ir.line < ir.line and fps[d].meets(fps[i])):
                    out.append((d, i))
    return out


def _waits(fn: AsmFunction, rp: Replay, fps: dict[int, Footprint]) -> list[Wait]:
    insts = fn.insts
    out: list[Wait] = []
    for w in rp.waits:
        retires = tuple(_place(insts[i]) for i in sorted(w.retires))
        needed = None if w.needed_by is None else _place(insts[w.needed_by])
        cause = w.cause
        if cause == "needed" and w.needed_by is not None and insts[w.needed_by].index in fps:
            # an LDS instruction that needs a retired DMA only where their bytes may meet
            nfp = fps[insts[w.needed_by].index]
            if insts[w.needed_by].kind != "dma" and not any(
                    insts[i].kind != "dma" or (i in fps and fps[i].meets(nfp)) for i in w.retires):
                cause, needed = "none", None
        out.append(Wait(fn.name, _place(insts[w.index]), w.value, cause, retires, needed))
    return out


def judge(asm: str, accesses: dict[int, IRAccess], functions: set[str] | None = None) -> list[FunctionVerdict]:
    """Judge every function of the assembly (those named in ``functions``, when given)."""
    generation = target_generation(asm)
    out = []
    for fn in read_amdgpu(asm):
        if functions is not None and fn.name not in functions:
            continue
        out.append(judge_function(fn, generation, accesses))
    return out


__all__ = ["CAUSES", "FunctionVerdict", "Place", "Race", "Wait", "footprint_of", "judge", "judge_function"]
