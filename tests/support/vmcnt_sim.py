"""An independent check of LDS-DMA waits in AMDGPU assembly.

The hardware keeps a wave's vector-memory operations in one in-order queue: every
``buffer_load*``, ``global_load*``, ``flat_load*``, ``scratch_load*`` (and on gfx9, where
``vmcnt`` also counts writes, every VMEM store and atomic) adds one entry, an LDS-DMA
(``buffer_load_dword ... lds``, ``global_load_lds_dword*``) included, and
``s_waitcnt vmcnt(N)`` (also inside a combined ``s_waitcnt vmcnt(N) lgkmcnt(M)``, as the
raw immediate of ``s_waitcnt``, as ``s_waitcnt_vmcnt``, or gfx12's ``s_wait_loadcnt``)
stalls until at most the newest N entries are outstanding. An LDS-DMA writes LDS when it
retires, so an LDS instruction (``ds_read*``/``ds_write*``/``ds_load*``/``ds_store*``/LDS
atomics) that touches bytes of a DMA still in the queue reads stale data or races with it.

This module walks the straight-line assembly of one kernel in order, keeps that queue,
and maps the k-th LDS-DMA and the k-th LDS instruction to the byte ranges the producer of
the kernel knows they touch (a side table: the code generator is not trusted to say what
it compiled). Nothing here reads LLVM's own wait decisions; it only replays the hardware
rules on what the code generator emitted.

When the code generator emitted as many LDS instructions, of the same kinds, as the side
table lists, they are mapped in order (the generator fences every access with
``llvm.amdgcn.sched.barrier(0)`` so that none moves). Otherwise the mapping falls back to
"an LDS instruction may be any access that follows, in program order, a DMA still in
flight": a DMA in flight at any LDS instruction while a later access may touch its bytes
is reported (``approximate=True``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

#: every byte of LDS (a DMA whose LDS destination is not known)
ANY = "*"


@dataclass(frozen=True)
class Bytes:
    """Bytes ``[lo, hi)`` of one LDS space: ``"dyn"`` (the dynamic LDS block, which every
    external ``[0 x T]`` global starts at), a static global's name, or ``ANY``.

    ``waves``, when given, is the range of each wave of the work-group (``lo``/``hi`` then
    span them all): a wave waits only for its own DMAs, so a DMA and an access need a wait
    when some wave's DMA bytes meet the same wave's access bytes."""

    space: str
    lo: int = 0
    hi: int = 0
    waves: tuple[tuple[int, int], ...] = ()

    def _wave(self, w: int) -> tuple[int, int]:
        return self.waves[w] if self.waves else (self.lo, self.hi)

    def overlaps(self, other: Bytes) -> bool:
        if self.space == ANY or other.space == ANY:
            return True
        if self.space != other.space:
            return False
        for w in range(max(len(self.waves), len(other.waves), 1)):
            (alo, ahi), (blo, bhi) = self._wave(w), other._wave(w)
            if alo < bhi and blo < ahi:
                return True
        return False

    def __str__(self) -> str:
        if self.space == ANY:
            return "all LDS"
        per = f" per wave {list(self.waves)}" if len(set(self.waves)) > 1 else ""
        return f"{self.space}[{self.lo}, {self.hi}){per}"


@dataclass(frozen=True)
class Dma:
    """The k-th LDS-DMA in program order: the bytes the whole wave writes."""

    bytes: Bytes
    desc: str = ""


@dataclass(frozen=True)
class Access:
    """The k-th LDS load or store in program order: the bytes any lane may touch, and how
    many DMAs precede it in program order."""

    bytes: Bytes
    write: bool
    after_dmas: int
    desc: str = ""


@dataclass(frozen=True)
class Event:
    kind: str  # "dma", "vmem", "wait", "lds"
    line: int
    text: str
    vmcnt: int | None = None  # for "wait"
    write: bool | None = None  # for "lds": None for a read-modify-write


@dataclass(frozen=True)
class LostWait:
    kernel: str
    dma: int
    access: int | None  # None: the LDS instruction could not be mapped (approximate)
    line: int
    text: str
    message: str
    approximate: bool = False
    reordered: bool = False


@dataclass
class Result:
    kernel: str
    lost: list[LostWait] = field(default_factory=list)
    approximate: bool = False

    @property
    def ok(self) -> bool:
        return not self.lost


class AsmError(Exception):
    """The assembly is not what the check can read (a branch, a DMA count that differs)."""


_NOT_VMEM = ("buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "buffer_gl0_inv", "buffer_gl1_inv")
_NOT_LDS = ("ds_bpermute", "ds_permute", "ds_swizzle", "ds_nop", "ds_gws", "ds_append", "ds_consume")
_BRANCH = re.compile(r"^s_(c?branch|setpc|swappc|call|cbranch_\w+)\b")
_VMCNT = re.compile(r"\bvmcnt\((\d+)\)")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")


def _is_store(mnem: str) -> bool:
    return "_store" in mnem or "_atomic" in mnem


def decode_gfx9_waitcnt(imm: int) -> int:
    """The vmcnt field of a raw gfx9 ``s_waitcnt`` immediate (bits 3:0 and 15:14)."""
    return (imm & 0xF) | (((imm >> 14) & 0x3) << 4)


def classify(text: str, line: int, stores_in_vmcnt: bool = True) -> Event | None:
    """One assembly line as an event of the queue, or None when it does not matter."""
    code = text.split(";", 1)[0].split("//", 1)[0].strip()
    if not code or code.startswith(".") or _LABEL.match(code):
        return None
    mnem, _, rest = code.partition(" ")
    mnem = mnem.strip()
    operands = [w.strip() for w in rest.replace(",", " ").split()]
    if _BRANCH.match(mnem):
        raise AsmError(f"line {line}: not straight-line code: {code}")
    if mnem == "s_waitcnt":
        m = _VMCNT.search(rest)
        if m:
            return Event("wait", line, code, vmcnt=int(m.group(1)))
        if operands and re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)", operands[0]):
            return Event("wait", line, code, vmcnt=decode_gfx9_waitcnt(int(operands[0], 0)))
        return None
    if mnem in ("s_waitcnt_vmcnt", "s_wait_loadcnt"):
        return Event("wait", line, code, vmcnt=int(operands[-1], 0))
    if mnem.startswith(("buffer_", "global_", "flat_", "scratch_")) and not mnem.startswith(_NOT_VMEM):
        if "lds" in operands or mnem.startswith(("global_load_lds", "buffer_load_lds")):
            return Event("dma", line, code)
        if _is_store(mnem) and not stores_in_vmcnt and "_atomic" not in mnem:
            return None
        return Event("vmem", line, code)
    if mnem.startswith("ds_") and not mnem.startswith(_NOT_LDS):
        if mnem.startswith(("ds_read", "ds_load")):
            return Event("lds", line, code, write=False)
        if mnem.startswith(("ds_write", "ds_store")):
            return Event("lds", line, code, write=True)
        return Event("lds", line, code, write=None)
    return None


def kernel_bodies(asm: str) -> dict[str, list[tuple[int, str]]]:
    """Each function of an assembly file (``name:`` up to ``s_endpgm``) as numbered lines."""
    out: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    globls = set(re.findall(r"^\s*\.globl\s+(\S+)", asm, re.MULTILINE))
    for no, raw in enumerate(asm.splitlines(), 1):
        m = _LABEL.match(raw)
        if m and m.group(1) in globls:
            current = m.group(1)
            out[current] = []
            continue
        if current is None:
            continue
        out[current].append((no, raw))
        if raw.strip().startswith("s_endpgm"):
            current = None
    return out


_FALLTHROUGH = re.compile(r"^\s*s_branch\s+(\S+)\s*$")


def _falls_through(lines: Sequence[tuple[int, str]], i: int) -> bool:
    """Line ``i`` is ``s_branch L`` and ``L:`` is the next thing that is not a directive
    (LLVM's kernel-argument preload prologue jumps over its padding this way)."""
    m = _FALLTHROUGH.match(lines[i][1].split(";", 1)[0])
    if not m:
        return False
    for _, raw in lines[i + 1:]:
        code = raw.split(";", 1)[0].strip()
        if not code or code.startswith("."):
            if code.startswith(m.group(1) + ":"):
                return True
            continue
        return code.startswith(m.group(1) + ":")
    return False


def events_of(lines: Sequence[tuple[int, str]], stores_in_vmcnt: bool = True) -> list[Event]:
    evs = []
    for i, (no, raw) in enumerate(lines):
        if _falls_through(lines, i):
            continue
        ev = classify(raw, no, stores_in_vmcnt)
        if ev is not None:
            evs.append(ev)
    return evs


def _kinds_match(events: Sequence[Event], accesses: Sequence[Access]) -> bool:
    lds = [e for e in events if e.kind == "lds"]
    if len(lds) != len(accesses):
        return False
    return all(e.write is None or e.write == a.write for e, a in zip(lds, accesses, strict=True))


def simulate(kernel: str, events: Sequence[Event], dmas: Sequence[Dma], accesses: Sequence[Access]) -> Result:
    """Replay the vmcnt queue over ``events``; every LDS instruction that may touch bytes of
    a DMA still in flight is a lost wait."""
    n_dma = sum(1 for e in events if e.kind == "dma")
    if n_dma != len(dmas):
        raise AsmError(f"{kernel}: {n_dma} LDS-DMA instructions in the assembly, {len(dmas)} in the program")
    exact = _kinds_match(events, accesses)
    res = Result(kernel, approximate=not exact)
    queue: list[int | None] = []  # oldest first; a DMA's index, None for another VMEM op
    issued = 0
    n_lds = 0
    for ev in events:
        if ev.kind == "dma":
            queue.append(issued)
            issued += 1
        elif ev.kind == "vmem":
            queue.append(None)
        elif ev.kind == "wait":
            assert ev.vmcnt is not None
            if len(queue) > ev.vmcnt:
                queue = queue[len(queue) - ev.vmcnt:] if ev.vmcnt else []
        elif ev.kind == "lds":
            in_flight = [q for q in queue if q is not None]
            if exact:
                a = accesses[n_lds]
                for k in in_flight:
                    if k < a.after_dmas and dmas[k].bytes.overlaps(a.bytes):
                        res.lost.append(LostWait(
                            kernel, k, n_lds, ev.line, ev.text,
                            f"{kernel}: line {ev.line} `{ev.text}` (access {n_lds}: {a.desc}, "
                            f"{a.bytes}) touches bytes of DMA {k} ({dmas[k].desc}, {dmas[k].bytes}) "
                            f"still in flight: no vmcnt wait retired it"))
                # a program-order-later DMA issued before this access and writing its bytes
                for k in range(a.after_dmas, issued):
                    if dmas[k].bytes.overlaps(a.bytes):
                        res.lost.append(LostWait(
                            kernel, k, n_lds, ev.line, ev.text,
                            f"{kernel}: line {ev.line} `{ev.text}` (access {n_lds}: {a.desc}) was "
                            f"moved below DMA {k} ({dmas[k].desc}) that writes its bytes",
                            reordered=True))
            else:
                for k in in_flight:
                    later = [i for i, a in enumerate(accesses)
                             if a.after_dmas > k and (ev.write is None or a.write == ev.write)
                             and dmas[k].bytes.overlaps(a.bytes)]
                    if later:
                        res.lost.append(LostWait(
                            kernel, k, None, ev.line, ev.text,
                            f"{kernel}: line {ev.line} `{ev.text}` runs while DMA {k} "
                            f"({dmas[k].desc}, {dmas[k].bytes}) is in flight, and accesses {later} "
                            f"after it touch its bytes (LDS instructions could not be mapped one "
                            f"to one: approximate)", approximate=True))
            n_lds += 1
    return res


def check_asm(asm: str, kernel: str, dmas: Sequence[Dma], accesses: Sequence[Access],
              stores_in_vmcnt: bool = True) -> Result:
    """Find ``kernel`` in ``asm`` and simulate it."""
    bodies = kernel_bodies(asm)
    if kernel not in bodies:
        raise AsmError(f"{kernel}: not in the assembly (functions: {sorted(bodies)})")
    return simulate(kernel, events_of(bodies[kernel], stores_in_vmcnt), dmas, accesses)
