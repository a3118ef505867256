"""Which loop state the assembly is in: its back edges matched to the IR's loops (design 4b).

The replay (``asm.sync``) walks the assembly's blocks in a *context*: per loop of the IR whose
header phis LDS addresses depend on (``evolution``), the index of its state. The assembly has the
IR's loops (the code generator neither unrolls nor fuses them): a back edge of the assembly (a
retreating edge of a depth-first walk) belongs to the innermost IR loop that holds the IR blocks
of the instructions at both its ends (their ``.loc`` lines); crossing it moves that loop to its
next state, and entering its header from outside the loop starts it at state 0. A two-way branch
matched to an IR branch (``check.branches``) whose condition is one known value in a context (a
loop's exit test against a constant trip count) is taken only that way there. A tracked IR loop
that no back edge of the assembly matches, or a back edge that matches no IR loop, leaves the
states not known (``BEYOND``): no witness and no proof rests on them.
"""

from __future__ import annotations

from ..analysis.ranges.evolution import BEYOND
from ..asm.reader import AsmFunction
from ..ir.cfg import control_flow
from ..ir.model import LocalRef
from .branches import Branches, ir_block, ir_branches
from .exact import FunctionExact

Ctx = tuple[int, ...]


class Iterations:
    """The context after each edge of one assembly function (``edge``) and the entry's (``start``)."""

    def __init__(self, fn: AsmFunction, fx: FunctionExact | None) -> None:
        self.fx = fx
        succ = [list(b.succs) for b in fn.blocks]
        back, _ = control_flow(succ)
        self.back = back
        units = fx.evol.units if fx is not None else []
        n = len(units)
        #: back edge -> the IR loop it closes (-1: an untracked loop, -2: no loop found)
        self._advance: dict[tuple[int, int], int] = {}
        #: asm header -> (IR loop, the asm loop's body) for entries
        self._entry: dict[int, list[tuple[int, frozenset[int]]]] = {}
        self._fn = fn
        self._branches: Branches | None = None
        #: the matched branches' conditions' values per context
        self._decided: dict[tuple[int, Ctx], int | None] = {}
        if fx is None or not n:
            self._start: Ctx = tuple(0 for _ in range(n))
            return
        line_block = {inst.line: inst.block for inst in fx.fn.instrs}
        loops = fx.evol.loops
        preds: list[list[int]] = [[] for _ in succ]
        for b, ss in enumerate(succ):
            for s in ss:
                preds[s].append(b)
        matched: set[int] = set()
        for u, h in back:
            bus = self._ir_blocks_before(fn, u, preds, line_block)
            bh = ir_block(fn, h, line_block, last=False)
            found = -2
            if bus and bh is not None:
                inner = [i for i, lp in enumerate(loops) if bh in lp.body and bus <= lp.body]
                if inner:
                    li = min(inner, key=lambda i: len(loops[i].body))
                    found = li if any(un.loop == li for un in units) else -1
            self._advance[(u, h)] = found
            if found >= 0:
                matched.update(pos for pos, un in enumerate(units) if un.loop == found)
                body = {h}
                todo = [u]
                while todo:
                    b = todo.pop()
                    if b not in body:
                        body.add(b)
                        todo.extend(preds[b])
                self._entry.setdefault(h, []).append((found, frozenset(body)))
        self._start = tuple(0 if pos in matched else BEYOND for pos in range(n))
        self._never = {pos for pos in range(n) if pos not in matched}

    @staticmethod
    def _ir_blocks_before(fn: AsmFunction, u: int, preds: list[list[int]],
                          line_block: dict[int, int]) -> set[int]:
        """The IR block that ends the assembly block ``u``; where ``u`` names none (a
        structurizer's flow block: the loop's latch and its exit test meet there), the IR blocks
        ending the nearest blocks before it that name one."""
        got = ir_block(fn, u, line_block, last=True)
        if got is not None:
            return {got}
        out: set[int] = set()
        seen = {u}
        todo = list(preds[u])
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            got = ir_block(fn, b, line_block, last=True)
            if got is None:
                todo.extend(preds[b])
            else:
                out.add(got)
        return out

    @property
    def branches(self) -> Branches:
        """The function's two-way branches matched to IR branches (``check.branches``), found on
        first use: the loop states' exits here, the waves' ways in ``check.waves``."""
        if self._branches is None:
            self._branches = ir_branches(self._fn, self.fx) if self.fx is not None else {}
        return self._branches

    @property
    def start(self) -> Ctx:
        return self._start

    def _way(self, b: int, ctx: Ctx) -> int | None:
        """Which way (1: the IR ``br``'s true successor) every thread takes out of assembly block
        ``b`` in context ``ctx``, where its condition is one known value there (a loop's exit test
        against a constant trip count); None where it is not."""
        key = (b, ctx)
        if key not in self._decided:
            got: int | None = None
            fx = self.fx
            if fx is not None and b in self.branches and BEYOND not in ctx:
                v = fx.evol.evaluator(ctx).value(None, LocalRef(self.branches[b][1]))
                if isinstance(v, int):
                    got = v & 1
            self._decided[key] = got
        return self._decided[key]

    def edge(self, b: int, t: int, ctx: Ctx) -> tuple[Ctx, bool] | None:
        """The context after the edge ``b -> t`` from context ``ctx`` and whether it is a back
        edge; None where no thread takes it in ``ctx`` (its branch's condition is known there and
        selects the other way)."""
        is_back = (b, t) in self.back
        if not ctx or self.fx is None:
            return ctx, is_back
        if b in self.branches:
            way = self._way(b, ctx)
            if way is not None and self.branches[b][2][t] != way:
                return None
        if is_back:
            li = self._advance.get((b, t), -2)
            if li == -2:
                return tuple(BEYOND for _ in ctx), True
            if li < 0:
                return ctx, True
            out = list(ctx)
            for pos, unit in enumerate(self.fx.evol.units):
                if unit.loop == li:
                    k = ctx[pos]
                    out[pos] = unit.succ[k] if 0 <= k < len(unit.succ) else BEYOND
            return tuple(out), True
        entered = [li for li, body in self._entry.get(t, ()) if b not in body]
        if entered:
            out = list(ctx)
            for pos, unit in enumerate(self.fx.evol.units):
                if unit.loop in entered and pos not in self._never:
                    out[pos] = 0
            ctx = tuple(out)
        return ctx, False


__all__ = ["Iterations"]
