"""Loop-carried values, per iteration (design 4b, "exact"): each loop's header phis in every state.

A software pipeline picks its slot by a value carried around the loop: a stage counter
(``s' = s+1 < S ? s+1 : 0``, ``and``/``urem`` by a constant), pointers swapped or rotated among
phis, a pointer that advances by a step and is reset every few iterations. Their union over the
iterations is every slot, so a range says the DMA into the next slot may meet the read of this
one. Here the phis of a loop header that LDS addresses depend on are *simulated*, all together,
from their values on entry (``concrete``'s values in every thread): state 0 is the entry, state
``k + 1`` what the latch hands the header in state ``k``. A state seen before closes a **cycle**
(the states repeat from there); with none within ``HORIZON`` states the evolution is an
**affine** recurrence (start + i * step, each step the same) or **unknown**, and the states past
the horizon are not known (``BEYOND``): a check there is no proof and no witness.

The loops are the natural loops of the function's blocks: a retreating edge of a depth-first walk
from the entry closes one (irreducible flow too), its body the blocks that reach the edge's
source without passing its header. The state of a loop nested in another is simulated only where
its entry values do not depend on the outer loop's phis (else: unknown).

``guards`` says which threads run a block: those for which the branch conditions from its
dominators hold (a block whose one predecessor ends in a conditional branch to it adds that
condition; a join adds none, as the lanes reconverge there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ... import reasons
from ...ir import operands as opparse
from ...ir.cfg import control_flow
from ...ir.lexer import tokenize
from ...ir.model import Function, Instruction, LocalRef, Module, Value
from .concrete import Evaluator, Threads, Unknown, Val

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...ir.types import Type

#: states simulated before the evolution is called affine or unknown
HORIZON = 16
#: a loop state that is not known (past the horizon, or a loop whose states were not found)
BEYOND = -1


@dataclass(slots=True)
class Loop:
    """A natural loop: its header block, its body (blocks) and the blocks of its back edges."""

    header: int
    body: frozenset[int]
    latches: tuple[int, ...]


@dataclass(slots=True)
class Unit:
    """Header phis of one loop that evolve together (each one's next value reads only phis of
    the unit), and their states."""

    loop: int
    phis: tuple[str, ...]
    #: states[k][i]: phi ``phis[i]``'s value in state k
    states: list[tuple[Val, ...]] = field(default_factory=list)
    #: succ[k]: the state after state k (BEYOND: not known)
    succ: list[int] = field(default_factory=list)
    #: per phi: ``cycle``, ``affine`` or ``unknown``
    kinds: dict[str, str] = field(default_factory=dict)
    #: (prefix, period) of a cycle
    cycle: tuple[int, int] | None = None


def phi_labels(text: str) -> list[str]:
    """The incoming block labels of a phi, in order ('' where one is not a plain local)."""
    labels: list[str] = []
    depth = 0
    last: str = ""
    for t in tokenize(text):
        if t.text == "[":
            depth += 1
            last = ""
        elif t.text == "]":
            depth -= 1
            labels.append(last)
        elif depth == 1 and t.kind == "local":
            last = t.text
        elif t.kind == "metadata" and depth == 0:
            break
    return labels


def find_loops(fn: Function) -> list[Loop]:
    """The natural loops of ``fn``, outer before inner."""
    succ = fn.successors
    back, _ = control_flow(succ)
    preds: list[list[int]] = [[] for _ in succ]
    for b, ss in enumerate(succ):
        for s in ss:
            preds[s].append(b)
    by_header: dict[int, tuple[set[int], list[int]]] = {}
    for u, h in sorted(back):
        body, latches = by_header.setdefault(h, ({h}, []))
        latches.append(u)
        todo = [u]
        while todo:
            b = todo.pop()
            if b in body:
                continue
            body.add(b)
            todo.extend(preds[b])
    loops = [Loop(h, frozenset(body), tuple(latches)) for h, (body, latches) in by_header.items()]
    loops.sort(key=lambda lp: -len(lp.body))
    return loops


def dependencies(mod: Module, fn: Function, names: list[str]) -> set[str]:
    """Every local value ``names`` depend on, through operands and phis' incoming values."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        inst = fn.by_name.get(n)
        if inst is not None:
            todo.extend(operand_names(mod, inst))
    return seen


def operand_names(mod: Module, inst: Instruction) -> list[str]:
    """The local values an instruction reads (a phi: its incoming values)."""
    ops = opparse.parse(mod, inst)
    vals = list(ops.incoming) if ops.kind == "phi" else [v for _, v in ops.operands]
    return [v.name for v in vals if isinstance(v, LocalRef)]


class Evolutions:
    """The loops of one function and their header phis' states, for the threads ``threads``:
    ``units`` are the groups of header phis that ``relevant`` names (what LDS addresses and the
    conditions on threads depend on), each simulated on its own; a context is one state index per
    unit. A unit that no address depends on and that has no cycle is dropped (a trip counter that
    only a bound reads would multiply the contexts for nothing)."""

    def __init__(self, mod: Module, fn: Function, threads: Threads, relevant: set[str],
                 addresses: set[str] | None = None, every_lane: Callable[[Instruction], bool] | None = None) -> None:
        self.mod = mod
        self.every_lane = every_lane
        self.fn = fn
        self.threads = threads
        self.loops = find_loops(fn)
        self.header_phis: set[str] = set()
        headers = {lp.header: i for i, lp in enumerate(self.loops)}
        block_of = fn.instr_blocks
        per_loop: dict[int, list[str]] = {}
        for n, inst in enumerate(fn.instrs):
            if inst.opcode == "phi" and inst.name and block_of[n] in headers:
                self.header_phis.add(inst.name)
                per_loop.setdefault(headers[block_of[n]], []).append(inst.name)
        self.units: list[Unit] = []
        #: units only the conditions on threads read, with no cycle: not in the contexts; a
        #: witness that assumes arguments takes them at the iteration its context's state is
        self.dropped: list[Unit] = []
        for li, lp in enumerate(self.loops):
            phis = [p for p in per_loop.get(li, []) if p in relevant]
            for group in self._groups(lp, phis):
                unit = Unit(li, tuple(group))
                self._simulate(lp, unit)
                if addresses is None or unit.cycle is not None or any(p in addresses for p in group):
                    self.units.append(unit)
                else:
                    self.dropped.append(unit)
        self._evals: dict[tuple[object, ...], Evaluator] = {}

    def is_header_phi(self, name: str) -> bool:
        return name in self.header_phis

    def _groups(self, lp: Loop, phis: list[str]) -> list[list[str]]:
        """The phis in groups closed under what their next values read."""
        if not phis:
            return []
        group = {p: p for p in phis}

        def find(p: str) -> str:
            while group[p] != p:
                p = group[p]
            return p

        for p in phis:
            inc = self._incoming(lp, p)
            if inc is None or not isinstance(inc[1], LocalRef):
                continue
            for q in self._phis_read(inc[1].name):
                if q in group:
                    group[find(q)] = find(p)
        out: dict[str, list[str]] = {}
        for p in phis:
            out.setdefault(find(p), []).append(p)
        return list(out.values())

    def _phis_read(self, name: str) -> set[str]:
        """The header phis a value reads, not looking through them."""
        seen: set[str] = set()
        found: set[str] = set()
        todo = [name]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in self.header_phis:
                found.add(n)
                continue
            inst = self.fn.by_name.get(n)
            if inst is not None:
                todo.extend(operand_names(self.mod, inst))
        return found

    def _incoming(self, lp: Loop, name: str) -> tuple[Value, Value] | None:
        """(entry value, latch value) of a header phi: one each, else None."""
        inst = self.fn.by_name[name]
        ops = opparse.parse(self.mod, inst)
        labels = phi_labels(self.mod.text[inst.opstart:inst.end])
        if len(labels) != len(ops.incoming):
            return None
        index = {lab: i for i, lab in enumerate(self.fn.blocks)}
        entry: list[Value] = []
        latch: list[Value] = []
        for lab, v in zip(labels, ops.incoming, strict=True):
            b = index.get(lab)
            if b is None:
                return None
            (latch if b in lp.body else entry).append(v)
        if not entry or not latch:
            return None
        if len({repr(v) for v in entry}) != 1 or len({repr(v) for v in latch}) != 1:
            return None
        return entry[0], latch[0]

    def _simulate(self, lp: Loop, unit: Unit) -> None:
        inc: dict[str, tuple[Value, Value]] = {}
        types: dict[str, Type | None] = {}
        for p in unit.phis:
            got = self._incoming(lp, p)
            if got is not None:
                inc[p] = got
                types[p] = opparse.parse(self.mod, self.fn.by_name[p]).result_type
        ev0 = Evaluator(self.mod, self.fn, self.threads, {}, self.is_header_phi, every_lane=self.every_lane)
        state = tuple(ev0.value(types[p], inc[p][0]) if p in inc else Unknown(reasons.NOT_EVALUATED.format(value=p, what="several entries"))
                      for p in unit.phis)
        seen: dict[tuple[Val, ...], int] = {}
        while len(unit.states) < HORIZON:
            if state in seen:
                j = seen[state]
                unit.succ[-1] = j
                unit.cycle = (j, len(unit.states) - j)
                break
            seen[state] = len(unit.states)
            unit.states.append(state)
            unit.succ.append(len(unit.states) if len(unit.states) < HORIZON else BEYOND)
            ev = Evaluator(self.mod, self.fn, self.threads, dict(zip(unit.phis, state, strict=True)),
                           self.is_header_phi, every_lane=self.every_lane)
            state = tuple(ev.value(types[p], inc[p][1]) if p in inc else Unknown(reasons.NOT_EVALUATED.format(value=p, what="several latches"))
                          for p in unit.phis)
        for i, p in enumerate(unit.phis):
            vals = [s[i] for s in unit.states]
            if any(isinstance(v, Unknown) for v in vals):
                unit.kinds[p] = "unknown"
            elif unit.cycle is not None:
                unit.kinds[p] = "cycle"
            else:
                unit.kinds[p] = "affine" if _affine(vals) else "unknown"

    # ------------------------------------------------------------ contexts
    def start(self) -> tuple[int, ...]:
        return tuple(0 for _ in self.units)

    def evaluator(self, ctx: tuple[int, ...], args: tuple[tuple[str, int], ...] = (),
                  choose: tuple[tuple[str, int], ...] = ()) -> Evaluator:
        """The evaluator of one context: per unit, the index of its state (``args``, ``choose``:
        ``Evaluator``'s, as pairs)."""
        key = (ctx, args, choose)
        ev = self._evals.get(key)
        if ev is None:
            env: dict[str, Val] = {}
            for pos, unit in enumerate(self.units):
                k = ctx[pos] if pos < len(ctx) else BEYOND
                for i, p in enumerate(unit.phis):
                    env[p] = unit.states[k][i] if 0 <= k < len(unit.states) else Unknown(
                        reasons.NOT_EVALUATED.format(value=p, what=f"past {len(unit.states)}"))
            if args:
                for unit in self.dropped:
                    k = next((ctx[pos] for pos, u in enumerate(self.units) if u.loop == unit.loop and pos < len(ctx)),
                             0)
                    if 0 <= k < len(unit.states):
                        env.update(zip(unit.phis, unit.states[k], strict=True))
            ev = self._evals[key] = Evaluator(self.mod, self.fn, self.threads, env, self.is_header_phi,
                                              args=dict(args), choose=dict(choose), every_lane=self.every_lane)
        return ev

    def describe(self, ctx: tuple[int, ...]) -> list[dict[str, object]]:
        """The loop states of a context, for a witness."""
        out: list[dict[str, object]] = []
        for pos, unit in enumerate(self.units):
            k = ctx[pos]
            vals: dict[str, object] = {}
            if 0 <= k < len(unit.states):
                for i, p in enumerate(unit.phis):
                    vals[p] = _show(unit.states[k][i])
            out.append({"loop": self.fn.blocks[self.loops[unit.loop].header], "state": k, "values": vals})
        return out


def _show(v: Val) -> object:
    if isinstance(v, int):
        return v
    if isinstance(v, tuple):
        return v[0] if len(set(v)) == 1 else f"{v[0]}, {v[1]}, ... (per thread)"
    if isinstance(v, Unknown):
        return "unknown"
    off = getattr(v, "off", 0)
    first = off if isinstance(off, int) else off[0]
    return f"{getattr(v, 'space', '?')}+{first}" + ("" if isinstance(off, int) else " (thread 0)")


def _affine(vals: list[Val]) -> bool:
    ints = [v for v in vals if isinstance(v, (int, tuple))]
    if len(ints) < 3 or len(ints) != len(vals):
        return False
    flat = [(v,) if isinstance(v, int) else v for v in ints]
    steps = {tuple(b - a for a, b in zip(x, y, strict=False)) for x, y in zip(flat, flat[1:], strict=False)}
    return len(steps) == 1


# ------------------------------------------------------------------ guards


@dataclass(frozen=True, slots=True)
class Guard:
    """A condition a thread must meet to run a block: ``cond`` (a local i1, or None: a branch
    this evaluation does not read) equal to ``holds``."""

    cond: str | None
    holds: bool


def guards(fn: Function, mod: Module) -> list[tuple[Guard, ...]]:
    """Per block, the conditions on the threads that run it (see the module's docstring)."""
    succ = fn.successors
    _, idom = control_flow(succ)
    n = len(succ)
    preds: list[list[int]] = [[] for _ in range(n)]
    for b, ss in enumerate(succ):
        for s in ss:
            preds[s].append(b)
    last: dict[int, int] = {}
    for i, b in enumerate(fn.instr_blocks):
        last[b] = i
    own: list[Guard | None] = [None] * n
    for b in range(n):
        if len(preds[b]) != 1 or b == 0:
            continue
        p = preds[b][0]
        t = last.get(p)
        if t is None:
            continue
        inst = fn.instrs[t]
        targets = succ[p]
        if len(targets) < 2 or targets.count(b) != 1:
            continue
        text = mod.text[inst.opstart:inst.end]
        if inst.opcode == "br" and len(targets) == 2:
            toks = [tk for tk in tokenize(text) if tk.kind == "local"]
            cond = toks[0].text if len(toks) == 3 else None
            own[b] = Guard(cond, targets[0] == b)
        else:
            own[b] = Guard(None, True)
    out: list[tuple[Guard, ...]] = [()] * n
    order = sorted(range(n), key=lambda b: _depth(idom, b))
    for b in order:
        if idom[b] < 0 or b == 0:
            continue
        g = own[b]
        out[b] = out[idom[b]] + ((g,) if g is not None else ())
    return out


def _depth(idom: list[int], b: int) -> int:
    d = 0
    while b > 0 and idom[b] >= 0 and idom[b] != b:
        b = idom[b]
        d += 1
    return d


__all__ = ["BEYOND", "HORIZON", "Evolutions", "Guard", "Loop", "Unit", "dependencies", "find_loops",
           "guards", "phi_labels"]
