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

import dataclasses
import re
from dataclasses import dataclass, field

from ..analysis.ranges.evolution import BEYOND, HORIZON
from ..asm.flow import thread_flag_blocks
from ..asm.queue import Replay, replay
from ..asm.reader import AsmFunction, AsmInst, read_amdgpu, target_generation
from ..asm.sync import RETIRED, replay_sync
from .exact import APART as APART_V
from .exact import Bytes, FunctionExact, Verdict
from .footprints import EVERYWHERE, Footprint, IRAccess, union
from .iterations import Ctx, Iterations
from .locate import BLOCK_DIRECTORY
from .pairs import compare
from .paths import runs_with
from .waves import pending_by_wave

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
    #: the lanes, waves, byte and loop states both touch (``pairs.compare``), and the ``kind``:
    #: ``read`` (the access while the DMA may write), ``overwrite`` (a DMA of one wave over bytes
    #: another wave may still read) or ``moved``
    witness: dict[str, object] = field(default_factory=dict, hash=False, compare=False)
    #: the counter whose wait would have retired the DMA (``vmcnt``/``loadcnt``, ``asynccnt``, ``tensorcnt``)
    counter: str = "vmcnt"

    def to_json(self) -> dict[str, object]:
        return {"function": self.function, "dma": self.dma.to_json(), "access": self.access.to_json(),
                "path": list(self.path), "dma_bytes": str(self.dma_bytes), "access_bytes": str(self.access_bytes),
                "moved": self.moved, "witness": dict(self.witness), "counter": self.counter}


@dataclass(frozen=True, slots=True)
class Unproven:
    """A (DMA, access) pair neither told apart nor witnessed, and what blocks the proof."""

    function: str
    dma: Place
    access: Place
    dma_bytes: Footprint
    access_bytes: Footprint
    why: str
    #: the IR line of the value that blocks the proof (0: none)
    line: int = 0
    kind: str = "read"
    #: the DMA may still be in the access's own wave's queue (not only unsynchronized with another)
    in_queue: bool = False

    def to_json(self) -> dict[str, object]:
        return {"function": self.function, "dma": self.dma.to_json(), "access": self.access.to_json(),
                "dma_bytes": str(self.dma_bytes), "access_bytes": str(self.access_bytes), "why": self.why,
                "blocking_line": self.line, "kind": self.kind}


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
    #: the loosest count that keeps every race-or-unproven pair and every register a retired load
    #: writes as it is (``check.ideal``; None: not computed); the counter's top: needed by nothing
    loosest: int | None = None
    #: the counter it waits on: ``vmcnt`` (gfx12 ``loadcnt``), ``asynccnt``, ``tensorcnt``
    counter: str = "vmcnt"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"function": self.function, "at": self.at.to_json(), "vmcnt": self.value,
                                  "cause": self.cause, "retires": [p.to_json() for p in self.retires],
                                  "needed_by": None if self.needed_by is None else self.needed_by.to_json(),
                                  "loosest": self.loosest}
        if self.counter in ("asynccnt", "tensorcnt"):
            out["counter"] = self.counter
        return out


@dataclass(slots=True)
class FunctionVerdict:
    name: str
    races: list[Race] = field(default_factory=list)
    unproven: list[Unproven] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    dmas: int = 0
    lds: int = 0
    #: LDS and DMA instructions whose IR line is not known (they may touch any byte)
    unmapped: int = 0

    @property
    def clean(self) -> bool:
        return not self.races


#: the calls that order LDS accesses in the code generator: barriers and waits (``hasSideEffects``
#: machine instructions, which the scheduler and the load/store merger move no memory access across)
_FENCE = re.compile(r"@llvm\.amdgcn\.(?:s\.barrier|s\.wait|s\.waitcnt|wait\.asyncmark)")


def _place(inst: AsmInst) -> Place:
    return Place(inst.line, inst.text, inst.ir_line, inst.ir_col)


_OFF01 = re.compile(r"\boffset([01]):(0x[0-9a-fA-F]+|\d+)")


def _pair_offsets(inst: AsmInst) -> tuple[int, int]:
    """``offset0`` and ``offset1`` of a ``ds_read2``/``ds_write2`` (0 where the text leaves one out)."""
    got = {m.group(1): int(m.group(2), 0) for m in _OFF01.finditer(inst.text)}
    return got.get("0", 0), got.get("1", 0)


def _widening(inst: AsmInst, acc: IRAccess) -> int:
    """How far an LDS instruction may reach past the IR access it is mapped to: a
    ``ds_read2``/``ds_write2`` merges two accesses at two offsets (the mapped one is one of
    them), a wider instruction than the access merges neighbours."""
    m = inst.mnemonic
    reach = 0
    if m.startswith(("ds_read2", "ds_write2", "ds_load_2", "ds_store_2")):
        o0, o1 = _pair_offsets(inst)
        elem = next((v for k, v in _ELEM.items() if m.endswith(k)), 8)
        unit = elem * 64 if "st64" in m else elem
        reach += abs(o1 - o0) * unit
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


def _unclaimed(fn: AsmFunction, accesses: dict[int, IRAccess], write: bool | None, block: int = -1) -> Footprint:
    """What an LDS instruction at line 0 may touch. LLVM gives an instruction that merges two
    (``ds_read2``, ``ds_write2``) of different lines the merged location, line 0: it stands for
    IR accesses of its function that no instruction of the assembly names, of its direction
    (reads, writes; atomics and calls both), and of the IR block its location's scope names
    where it names one (``block``, see ``_block_of``). The union of their footprints; every byte
    of LDS when there are none."""
    fp: Footprint | None = None
    for acc in _unclaimed_accesses(fn, accesses, write, block):
        fp = acc.footprint if fp is None else union(fp, acc.footprint)
    return EVERYWHERE if fp is None else fp


def _block_of(inst: AsmInst) -> int:
    """The IR block (index in its function) the scope of an instruction's location names, -1
    where it names none. The located copy (``locate``) scopes each location in a lexical block
    of its IR block; LLVM merges two locations into the nearest scope both share, so a merged
    instruction names a block only where both of its accesses are in that block."""
    d = inst.loc_dir
    if d.startswith(BLOCK_DIRECTORY) and d[len(BLOCK_DIRECTORY):].isdigit():
        return int(d[len(BLOCK_DIRECTORY):])
    return -1


def _unclaimed_accesses(fn: AsmFunction, accesses: dict[int, IRAccess], write: bool | None,
                        block: int = -1) -> list[IRAccess]:
    """The IR accesses an instruction at line 0 may stand for (``_unclaimed``)."""
    names = {f"@{fn.name}", f'@"{fn.name}"'}
    claimed: set[int] = set()
    for inst in fn.insts:
        # only an instruction that touches LDS claims an access (or the loads folded into its
        # line): a wait or an ALU instruction at a folded line (``s_wait_dscnt`` at the shuffle
        # the loads feed) holds none of them
        if inst.ir_line and (inst.kind in ("lds", "dma") or getattr(inst, "may_lds", False)):
            claimed.add(inst.ir_line)
            acc = accesses.get(inst.ir_line)
            if acc is not None:
                claimed.update(acc.sources)
    out: list[IRAccess] = []
    for acc in accesses.values():
        if acc.function not in names or acc.is_dma or acc.kind == "folded" or acc.line in claimed:
            continue
        if write is not None and acc.kind in ("load", "store") and (acc.kind == "store") != write:
            continue
        if block >= 0 and acc.block != block:
            continue
        out.append(acc)
    return out


def _judged(inst: AsmInst, accesses: dict[int, IRAccess]) -> bool:
    """Is the instruction an LDS access the check judges? Every ``ds_`` access; a flat
    access only where its IR access is traced to an LDS variable."""
    if inst.kind == "lds":
        return True
    if getattr(inst, "may_lds", False) and inst.ir_line:
        acc = accesses.get(inst.ir_line)
        return acc is not None and acc.footprint is not EVERYWHERE and not acc.is_dma
    return False


def judge_function(fn: AsmFunction, generation: int, accesses: dict[int, IRAccess],
                   fx: FunctionExact | None = None, *, ideal: bool = False) -> FunctionVerdict:
    """Races, unproven pairs and waits of one function of the assembly (``fx``: the exact
    footprints of its IR function; None: every pair that ranges do not tell apart is unproven)."""
    v = FunctionVerdict(fn.name)
    fn = thread_flag_blocks(fn)
    insts = fn.insts
    rp = replay(fn, generation)
    fps: dict[int, Footprint] = {}
    lost: dict[tuple[bool | None, int], Footprint] = {}
    for inst in insts:
        if inst.kind == "dma" or _judged(inst, accesses):
            where = (inst.lds_write, _block_of(inst))
            if inst.kind == "lds" and not inst.ir_line and where not in lost:
                lost[where] = _unclaimed(fn, accesses, *where)
            fps[inst.index] = footprint_of(inst, accesses, lost.get(where, EVERYWHERE))
            if inst.kind == "dma":
                v.dmas += 1
            else:
                v.lds += 1
            if not inst.ir_line or inst.ir_line not in accesses:
                v.unmapped += 1
    judged = {i for i in fps if insts[i].kind != "dma"}
    it = Iterations(fn, fx)
    pairs = _Pairs(fn, accesses, fps, fx, rp, it)
    sync = replay_sync(fn, generation, judged, it.start, it.edge)
    at_access = pending_by_wave(fn, generation, judged, it, fx, sync)
    for a, entries in at_access.items():
        for ca, pending in entries:
            for (d, cd, crossed), count in pending.items():
                pairs.judge(d, cd, a, ca, same_wave=count < RETIRED, fresh=not crossed, kind="read")
    for d, dentries in sync.at_dma.items():
        for cd, reads in dentries:
            for a, ca, _ in reads:
                pairs.judge(d, cd, a, ca, same_wave=False, fresh=False, kind="overwrite")
    contexts: dict[int, list[tuple[int, ...]]] = {}
    for a, entries in at_access.items():
        contexts[a] = [ca for ca, _ in entries]
    for d, a in _moved_above(fn, accesses, fps):
        for ca in contexts.get(a, [it.start]):
            pairs.judge(d, ca, a, ca, same_wave=True, fresh=True, kind="moved", others=False)
    v.races, v.unproven = pairs.results()
    v.waits = _waits(fn, rp, fps)
    if ideal and v.waits:
        from .ideal import loosest_counts

        def again() -> set[tuple[object, ...]]:
            return _pair_keys(judge_function(fn, generation, accesses, fx))

        counts = loosest_counts(fn, generation, rp, _pair_keys(v), again)
        v.waits = [dataclasses.replace(w, loosest=counts.get((wi.index, wi.counter or rp.field_name)))
                   for w, wi in zip(v.waits, rp.waits, strict=True)]
    return v


def _pair_keys(v: FunctionVerdict) -> set[tuple[object, ...]]:
    """The (DMA, access) pairs a verdict reports, races and unproven alike, with how (a race
    within a wave or between waves; an unproven pair in the wave's queue or not)."""
    out: set[tuple[object, ...]] = {(r.dma.ir_line or -r.dma.asm_line, r.access.ir_line or -r.access.asm_line,
                                      "race", bool(r.witness.get("between_waves"))) for r in v.races}
    out |= {(u.dma.ir_line or -u.dma.asm_line, u.access.ir_line or -u.access.asm_line, "unproven", u.in_queue)
            for u in v.unproven}
    return out


def _whichever(verdicts: dict[int, Verdict], key: str, why: str, line: int = 0) -> Verdict:
    """An instruction that is one of several IR accesses, whichever it is (``verdicts``, in their
    order): a race where each races (the first's witness, naming it and, under ``key``, them all),
    apart where each is apart, else unproven (``why``)."""
    kinds = {v.kind for v in verdicts.values()}
    if kinds == {"race"}:
        first = next(iter(verdicts))
        return Verdict("race", {**(verdicts[first].witness or {}), key: list(verdicts), "access_line": first})
    if kinds == {"apart"}:
        return APART_V
    return Verdict("unproven", why=why, line=line)


class _Pairs:
    """The verdicts of one function's pairs, one per (DMA line, access line): a race where any
    context and path has one (a false path never hides a true one), else the first unproven."""

    def __init__(self, fn: AsmFunction, accesses: dict[int, IRAccess], fps: dict[int, Footprint],
                 fx: FunctionExact | None, rp: Replay, it: Iterations) -> None:
        self.fn = fn
        self.it = it
        self.accesses = accesses
        self.fps = fps
        self.fx = fx
        self.rp = rp
        self.races: dict[tuple[int, int], Race] = {}
        self.unproven: dict[tuple[int, int], Unproven] = {}
        self._done: set[tuple[object, ...]] = set()
        self._line_block: dict[int, int] | None = None
        self._fences: dict[int, int] | None = None
        #: the path of the pair being judged (``_compare``)
        self._path: tuple[str, ...] = ()

    def judge(self, d: int, cd: tuple[int, ...], a: int, ca: tuple[int, ...], *, same_wave: bool, fresh: bool,
              kind: str, others: bool = True) -> None:
        insts = self.fn.insts
        di, ai = insts[d], insts[a]
        key = (di.ir_line or -di.line, ai.ir_line or -ai.line)
        if key in self.races:
            return
        memo = (d, cd, a, ca, same_wave, fresh, others, kind)
        if memo in self._done:
            return
        self._done.add(memo)
        if di.lds_write is False:
            # an asynchronous read of LDS (a store from LDS): only a write of its bytes races it
            if ai.lds_write is False or kind == "overwrite":
                return
            kind = "write" if kind == "read" else kind
        dfp, afp = self.fps.get(d), self.fps.get(a)
        if dfp is None or afp is None or not dfp.meets(afp):
            return
        path = tuple(self.rp.path(d, a)) if kind != "overwrite" else ()
        self._path = path
        verdict = self._exact(d, cd, a, ca, same_wave=same_wave, others=others, fresh=fresh)
        if verdict.kind == "apart":
            return
        if verdict.kind == "race":
            w = dict(verdict.witness or {})
            w["kind"] = kind
            # (a witness's assumed arguments run the path: ``_compare`` took only such values)
            if not fresh and kind != "overwrite" and (BEYOND in ca or BEYOND in cd):
                # the replay joins every trip count past the states it follows: the DMA's entry
                # holds the fewest issues after it of any of them, while the witness's values fix
                # one trip count (an exit it may not take there)
                verdict = Verdict("unproven", why=f"a race only if the loop runs past the {HORIZON} "
                                  "states the check follows a number of times that the values the "
                                  "witness assumes may not give")
        if verdict.kind == "race":
            at = _place(ai)
            line = w.get("access_line")
            if isinstance(line, int) and line in self.accesses:
                # a merged instruction: the IR access of it that races
                at = Place(ai.line, ai.text, line, self.accesses[line].col)
            self.races[key] = Race(self.fn.name, _place(di), at, path, dfp, afp, moved=kind == "moved",
                                   witness=w, counter=self.rp.qs[d] if self.rp.qs else self.rp.field_name)
            self.unproven.pop(key, None)
            return
        old = self.unproven.get(key)
        if old is None or (same_wave and not old.in_queue):
            self.unproven[key] = Unproven(self.fn.name, _place(di), _place(ai), dfp, afp, verdict.why, verdict.line,
                                          kind, in_queue=same_wave or (old is not None and old.in_queue))

    def _compare(self, dma_line: int, cd: tuple[int, ...], acc_line: int, ca: tuple[int, ...], *,
                 same_wave: bool, others: bool, fresh: bool) -> Verdict:
        """``pairs.compare`` of the pair being judged, a witness's assumed arguments taken only
        where the path that brings the pair together runs with them (``_path_feasible``)."""
        fx = self.fx
        assert fx is not None
        path = self._path

        def feasible(args: tuple[tuple[str, int], ...]) -> bool:
            return self._path_feasible(path, cd, ca, dict(args))

        return compare(fx, dma_line, cd, acc_line, ca, same_wave=same_wave, other_waves=others, fresh=fresh,
                       feasible=feasible if path else None, path=path)

    def _exact(self, d: int, cd: tuple[int, ...], a: int, ca: tuple[int, ...], *, same_wave: bool, others: bool,
               fresh: bool) -> Verdict:
        fx = self.fx
        di, ai = self.fn.insts[d], self.fn.insts[a]
        if fx is None:
            return Verdict("unproven", why="no exact footprints for this function")
        if not ai.ir_line and ai.kind == "lds" and di.ir_line in fx.sites:
            return self._merged(ai, di.ir_line, cd, ca, same_wave=same_wave, others=others, fresh=fresh)
        if not di.ir_line or di.ir_line not in fx.sites:
            return Verdict("unproven", why="an LDS-DMA whose IR call is not known", line=di.ir_line)
        acc = self.accesses.get(ai.ir_line)
        if acc is not None and acc.kind == "folded" and acc.sources and all(s in fx.sites for s in acc.sources):
            return self._folded(acc, di.ir_line, cd, ca, same_wave=same_wave, others=others, fresh=fresh)
        if not ai.ir_line or ai.ir_line not in fx.sites:
            return Verdict("unproven", why="an LDS instruction of the assembly whose IR access is not known "
                           "(merged, or without a line)", line=ai.ir_line)
        got = self._compare(di.ir_line, cd, ai.ir_line, ca, same_wave=same_wave, others=others, fresh=fresh)
        if got.kind == "apart" and acc is not None and _widening(ai, acc):
            return Verdict("unproven", why=f"the instruction `{ai.mnemonic}` covers more than its IR access "
                           "(merged with a neighbour); the rest is judged by ranges", line=ai.ir_line)
        return got

    def _segment(self, ai: AsmInst, block: int) -> tuple[int, float]:
        """The IR lines an instruction at line 0 of IR block ``block`` lies between: those of the
        nearest barriers and waits (calls with side effects, which the code generator moves no
        memory access across) before and after it in its assembly block that are calls of that
        IR block; (0, inf) where there are none."""
        fx = self.fx
        assert fx is not None
        if self._fences is None:
            self._fences = {inst.line: inst.block for inst in fx.fn.instrs if inst.opcode == "call"
                            and _FENCE.search(fx.mod.text[inst.opstart:inst.end])}
        fn = self.fn
        blk = fn.blocks[fn.block_of(ai.index)]
        lo: int = 0
        hi: float = float("inf")
        for i in range(ai.index - 1, blk.first - 1, -1):
            line = fn.insts[i].ir_line
            if line and self._fences.get(line) == block:
                lo = line
                break
        for i in range(ai.index + 1, blk.last + 1):
            line = fn.insts[i].ir_line
            if line and self._fences.get(line) == block:
                hi = line
                break
        return lo, hi

    def _path_feasible(self, path: tuple[str, ...], cd: Ctx, ca: Ctx, assumes: dict[str, int]) -> bool:
        """``paths.runs_with`` of the replay's path from the DMA (in ``cd``) to the access (in ``ca``)."""
        if self.fx is None:
            return True
        if self._line_block is None:
            self._line_block = {inst.line: inst.block for inst in self.fx.fn.instrs}
        return runs_with(self.fn, self.fx, self.it, self._line_block, path, cd, ca, assumes)

    def _merged(self, ai: AsmInst, dma_line: int, cd: tuple[int, ...], ca: tuple[int, ...], *, same_wave: bool,
                others: bool, fresh: bool) -> Verdict:
        """An instruction at line 0 stands for one of the IR accesses no instruction names: a race
        where each of them races (whichever it is), apart where each is apart."""
        fx = self.fx
        assert fx is not None
        block = _block_of(ai)
        cands = [acc.line for acc in _unclaimed_accesses(self.fn, self.accesses, ai.lds_write, block)]
        if block >= 0:
            lo, hi = self._segment(ai, block)
            cands = [c for c in cands if lo < c < hi]
        if not cands or any(c not in fx.sites for c in cands):
            return Verdict("unproven", why="an LDS instruction of the assembly with no IR line, standing for "
                           "accesses whose addresses are not all read")
        verdict = {c: self._compare(dma_line, cd, c, ca, same_wave=same_wave, others=others, fresh=fresh)
                   for c in cands}
        pairs = self._merged_pairs(ai, cands, ca)
        if pairs:
            # the instruction is one of these pairs: it races where it holds a racing access
            def held_by(x: int, y: int) -> Verdict:
                for c in (x, y):
                    if verdict[c].kind == "race":
                        return Verdict("race", {**(verdict[c].witness or {}), "access_line": c})
                return APART_V if verdict[x].kind == verdict[y].kind == "apart" else Verdict("unproven")

            per = [held_by(x, y) for x, y in pairs]
            if all(v.kind == "race" for v in per):
                w = dict(per[0].witness or {})
                w["merged"] = [list(p) for p in pairs]
                return Verdict("race", w)
            if all(v.kind == "apart" for v in per):
                return APART_V
            held = self._held_together(ai, pairs, cands)
            racing = [v for v in per if v.kind == "race"]
            if held and racing:
                # each pair is one of these instructions, run one after another with no wait between:
                # whichever holds the racing pair reads it while the DMA is in flight
                w = dict(racing[0].witness or {})
                w["merged"] = [list(p) for p in pairs]
                w["instructions"] = held
                return Verdict("race", w)
        kinds = ", ".join(v.kind for v in list(verdict.values())[:6])
        return _whichever(verdict, "merged", "an LDS instruction of the assembly with no IR line (merged): some of "
                          f"the accesses it may stand for (lines {', '.join(map(str, cands[:6]))}) race, some not: "
                          f"{kinds}")

    def _folded(self, acc: IRAccess, dma_line: int, cd: tuple[int, ...], ca: tuple[int, ...], *,
                same_wave: bool, others: bool, fresh: bool) -> Verdict:
        """An instruction at the line of an instruction that LDS loads were folded into (a vector
        built from byte loads: the loads take the line of the shuffle that uses them) stands for one
        of those loads: a race where each of them races, apart where each is apart."""
        fx = self.fx
        assert fx is not None
        got = {s: self._compare(dma_line, cd, s, ca, same_wave=same_wave, others=others, fresh=fresh)
               for s in acc.sources}
        return _whichever(got, "folded", "an LDS instruction of the assembly at the line of an instruction loads "
                          f"were folded into: some of those loads (lines {', '.join(map(str, acc.sources[:6]))}) "
                          "race, some not", acc.line)

    def _held_together(self, ai: AsmInst, pairs: list[tuple[int, int]], cands: list[int]) -> list[int]:
        """The assembly lines of the merged instructions like ``ai`` (line 0, one mnemonic) where they
        are as many as the pairs, the pairs share no access and cover the candidates, and they run in
        one block with no wait between them; [] otherwise."""
        flat = [c for p in pairs for c in p]
        if len(set(flat)) != len(flat) or set(flat) != set(cands):
            return []
        fn = self.fn
        blk = fn.blocks[fn.block_of(ai.index)]
        same = [i for i in range(blk.first, blk.last + 1)
                if fn.insts[i].mnemonic == ai.mnemonic and not fn.insts[i].ir_line]
        if len(same) != len(pairs):
            return []
        if any(fn.insts[i].wait for i in range(same[0], same[-1] + 1)):
            return []
        return [fn.insts[i].line for i in same]

    def _merged_pairs(self, ai: AsmInst, cands: list[int], ca: tuple[int, ...]) -> list[tuple[int, int]]:
        """The pairs of candidates a ``ds_read2``/``ds_write2`` may merge: in every thread the second
        access's address is the first's plus the instruction's offsets apart."""
        fx = self.fx
        m = ai.mnemonic
        if fx is None or not m.startswith(("ds_read2", "ds_write2", "ds_load_2", "ds_store_2")):
            return []
        o0, o1 = _pair_offsets(ai)
        elem = next((v for k, v in _ELEM.items() if m.endswith(k)), 8)
        delta = (o1 - o0) * (elem * 64 if "st64" in m else elem)
        lo: dict[int, tuple[int, ...]] = {}
        for c in cands:
            b = fx.bytes(c, ca)
            if not isinstance(b, Bytes):
                # a candidate whose addresses are not read may be half of the instruction: no
                # pair can be said to be the one it is
                return []
            lo[c] = b.lo
        out = []
        for x in lo:
            for y in lo:
                if x != y and all(b - a == delta for a, b in zip(lo[x], lo[y], strict=True)):
                    out.append((x, y))
        return out

    def results(self) -> tuple[list[Race], list[Unproven]]:
        return list(self.races.values()), list(self.unproven.values())


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
        out.append(Wait(fn.name, _place(insts[w.index]), w.value, cause, retires, needed,
                        counter=w.counter or rp.field_name))
    return out


def judge(asm: str, accesses: dict[int, IRAccess], functions: set[str] | None = None,
          exact: dict[str, FunctionExact] | None = None, *, ideal: bool = False) -> list[FunctionVerdict]:
    """Judge every function of the assembly (those named in ``functions``, when given);
    ``exact``: the exact footprints of the IR functions, by name (without ``@``)."""
    generation = target_generation(asm)
    out = []
    for fn in read_amdgpu(asm):
        if functions is not None and fn.name not in functions:
            continue
        out.append(judge_function(fn, generation, accesses, (exact or {}).get(fn.name), ideal=ideal))
    return out


__all__ = ["CAUSES", "FunctionVerdict", "Place", "Race", "Unproven", "Wait", "footprint_of", "judge", "judge_function"]
