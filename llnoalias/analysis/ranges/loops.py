"""The loop driver of the range analysis: phis, selects and the compares that guard them.

A loop phi is the join of its incoming values, a value computed through the phi itself
reading it as unknown; then an inductive invariant is tried (assume the phi in R, evaluate
the loop under that assumption, R holds when every incoming value lands in R again).
Counted loops (an increment by a positive constant guarded by the back edge's compare) get
the compare's bound. A select's arms are narrowed by the condition that chooses them.
"""

from __future__ import annotations

import bisect

from ... import reasons
from ...ir import operands as opparse
from ...ir.lexer import canon_name, icmp_predicate, tokenize
from ...ir.model import Instruction, LocalRef, Ops, UndefConst, Value
from . import knownbits as kb
from .interval import (
    IntResult,
    Range,
    const_range,
    fit,
    int_const,
    join,
    known,
    srange,
    urange,
    width,
    with_known,
)
from .transfer import BUDGET, IntTransfer

#: the steps spent solving phis before the first query, at most
WARM_BUDGET = 4 * BUDGET


class LoopRanges(IntTransfer):
    """Phis, selects and loops on top of the transfer functions."""

    def _before_query(self) -> None:
        """Before the first query, solve every integer phi from the outside, in text order.

        A loop is solved at its phi: the phi assumes a range and evaluates the loop's values
        under it. A query that enters the loop elsewhere (``select`` of a stage counter,
        reached from an address) finds that value in progress when the phi asks for it
        again, so the phi cannot solve its loop and the value gets a loose range (Triton's
        pipelined ``s = s + 1 < 2 ? s + 1 : 0`` read as any value below 2). Solving the phis
        first, each as the entry of its own query, makes a value's range independent of
        which query reached it first."""
        super()._before_query()
        if self._phis_solved:
            return
        self._phis_solved = True
        spent = 0
        for inst in self.fn.instrs:
            if inst.opcode != "phi" or inst.name is None or inst.name in self.ints:
                continue
            ops = opparse.parse(self.mod, inst)
            ty = ops.result_type
            if ops.kind == "phi" and ty is not None and ty.kind == "int":
                self.int_range(ty, LocalRef(inst.name))
                spent += BUDGET - self._budget
                super()._before_query()
                if spent > WARM_BUDGET:
                    break  # a huge function: the rest are solved when a query needs them

    def _select(self, ops: Ops, w: int) -> IntResult:
        """The join of both arms, each narrowed by what the condition says when it is chosen
        (``select (icmp slt x, 2), x, 0``: the first arm is below 2)."""
        cty, cond = ops.operands[0]
        picks: tuple[tuple[int, bool], ...] = ((1, True), (2, False))
        if width(cty) == 1:
            # a condition the ranges decide (``icmp slt %tid, 0``: false) picks one arm
            c = self.int_range(cty, cond)
            if isinstance(c, Range) and c.lo == c.hi:
                picks = ((1, True),) if c.lo else ((2, False),)
        arms: list[IntResult] = []
        for pos, holds in picks:
            ty, v = ops.operands[pos]
            r = self.int_range(ty, v)
            if isinstance(r, str) and reasons.ITSELF in r:
                return r  # inside a loop being solved: let the phi iterate
            narrowed = self._narrow(r, v, cond, holds, w)
            if narrowed is None:
                continue  # this arm is never chosen
            arms.append(narrowed)
        if not arms:
            return reasons.SELECT_NO_VALUE.text
        out = arms[0]
        for r in arms[1:]:
            out = join(out, r, w)
        return out

    def _narrow(self, r: IntResult, v: Value, cond: Value, holds: bool, w: int) -> IntResult | None:
        """``r`` (the range of ``v``) where ``cond`` is ``holds``; None when that cannot be."""
        if not isinstance(cond, LocalRef):
            return r
        cmp = self.fn.by_name.get(cond.name)
        if cmp is None or cmp.opcode != "icmp":
            return r
        ops = opparse.parse(self.mod, cmp)
        pred = icmp_predicate(self.mod.text, cmp.start, cmp.end)
        if ops.kind != "cmp" or pred is None or width(ops.operands[0][0]) != w:
            return r
        (ty, a), (_, b) = ops.operands
        if not _same(a, v):
            if not _same(b, v):
                return r
            a, b = b, a
            pred = _SWAP.get(pred, "")
        if not holds:
            pred = _NEGATE.get(pred, "")
        other = self.int_range(ty, b)
        if pred in ("ult", "ule", "ugt", "uge"):
            x, o = urange(r, w), urange(other, w)
            lo, hi = x.lo, x.hi
            if pred == "ult":
                hi = min(hi, o.hi - 1)
            elif pred == "ule":
                hi = min(hi, o.hi)
            elif pred == "ugt":
                lo = max(lo, o.lo + 1)
            else:
                lo = max(lo, o.lo)
        elif pred in ("slt", "sle", "sgt", "sge"):
            x, o = srange(r, w), srange(other, w)
            lo, hi = x.lo, x.hi
            if pred == "slt":
                hi = min(hi, o.hi - 1)
            elif pred == "sle":
                hi = min(hi, o.hi)
            elif pred == "sgt":
                lo = max(lo, o.lo + 1)
            else:
                lo = max(lo, o.lo)
        elif pred == "eq" and isinstance(other, Range):
            return other
        else:
            return r
        if lo > hi:
            return None
        if isinstance(r, Range):
            # the arm's bits still hold where it is chosen
            return with_known(Range(lo, hi), known(r, w), w)
        return Range(lo, hi)

    def _phi(self, inst: Instruction, ops: Ops, w: int) -> IntResult:
        counted = self._counted_loop(inst, ops, w)
        if isinstance(counted, Range):
            return counted
        ty = ops.result_type
        assert ty is not None
        vals = [v for v in ops.incoming if not isinstance(v, UndefConst)]
        if not vals:
            return reasons.UNDEF_ONLY.format(kind="phi", at="")
        out: IntResult | None = None
        cyclic = False
        for v in vals:
            r = self.int_range(ty, v)
            if isinstance(r, str) and reasons.ITSELF in r:
                cyclic = True
                continue
            out = r if out is None else join(out, r, w)
            if not isinstance(out, Range):
                return out
        if not cyclic:
            return out if out is not None else reasons.UNDEF_ONLY.format(kind="phi", at="")
        if not isinstance(out, Range) or inst.name is None:
            return reasons.UNBOUNDED_LOOP_PHI.format(line=inst.line)
        # An inductive invariant: assume the phi in R, evaluate the loop's values under that
        # assumption; when every incoming value lands in R again, R holds on every iteration.
        key = "i" + inst.name
        assumed: Range = out
        try:
            for _ in range(5):
                self._assume[key] = assumed
                nxt: IntResult = assumed
                for v in vals:
                    r = self.int_range(ty, v)
                    nxt = join(nxt, r, w)
                    if not isinstance(nxt, Range):
                        return reasons.UNBOUNDED_LOOP_PHI.format(line=inst.line)
                if not isinstance(nxt, Range):
                    break
                if nxt == assumed:
                    return assumed
                if (nxt.lo, nxt.hi) == (assumed.lo, assumed.hi) and assumed.zero | assumed.one:
                    # the interval holds, its bits are still shrinking: assume no bits beyond
                    # what the interval implies (a weaker assumption, checked the same way)
                    nxt = with_known(Range(nxt.lo, nxt.hi), kb.NOTHING, w)
                assumed = nxt
        finally:
            self._assume.pop(key, None)
        return reasons.UNBOUNDED_LOOP_PHI.format(line=inst.line)

    def _phi_labels(self, inst: Instruction) -> list[str] | None:
        """The incoming blocks' labels of phi ``inst``, in order, or None when one is not
        read; each distinct text read once (``_LABELS_SEEN``: a phi spelled alike, as in
        functions made from one template, has the same labels)."""
        text = self.mod.text[inst.start:inst.end]
        if text in _LABELS_SEEN:
            got = _LABELS_SEEN[text]
        else:
            if len(_LABELS_SEEN) >= LABELS_SEEN_LIMIT:
                _LABELS_SEEN.clear()
            got = _LABELS_SEEN[text] = _read_phi_labels(text)
        return None if got is None else list(got)

    def _terminator(self, label: str) -> Instruction | None:
        """The last instruction of block ``label`` (instructions are in text order)."""
        fn = self.fn
        try:
            idx = fn.blocks.index(label)
        except ValueError:
            return None
        offsets = fn.block_offsets
        nxt = offsets[idx + 1] if idx + 1 < len(offsets) else len(self.mod.text) + 1
        k = bisect.bisect_left(fn.instrs, nxt, key=lambda i: i.start) - 1
        if k < 0 or fn.instrs[k].block != idx:
            return None
        return fn.instrs[k]

    def _counted_loop(self, inst: Instruction, ops: Ops, w: int) -> IntResult | None:
        """``i = phi [init, ...], [i + c, latch]`` whose back edge is taken only while a
        compare of ``i + c`` (or ``i``) against a bound holds. The bound is an invariant:
        every value the phi receives is an initial value or passed the compare."""
        labels = self._phi_labels(inst)
        if labels is None or len(labels) != len(ops.incoming) or inst.name is None:
            return None
        ty = ops.result_type
        assert ty is not None
        me = inst.name
        header = inst.block if inst.block < len(self.fn.blocks) else None
        inits: list[Range] = []
        backs: list[tuple[int, str, int, str]] = []  # (step, latch label, compared is next?, next name)
        for v, label in zip(ops.incoming, labels, strict=True):
            if isinstance(v, UndefConst):
                continue
            step = self._step_of(v, me, w)
            if step is None:
                r = self.int_range(ty, v)
                if not isinstance(r, Range):
                    return None
                inits.append(r)
            else:
                assert isinstance(v, LocalRef)
                backs.append((step, label, 0, v.name))
        if not backs or not inits or header is None:
            return None
        sign = None
        los: list[int] = []
        his: list[int] = []
        for step, label, _, nxt in backs:
            cond = self._back_edge_condition(label, header)
            if cond is None:
                return None
            pred, lhs, rhs = cond
            if isinstance(rhs, LocalRef) and rhs.name in (nxt, me) and not (
                    isinstance(lhs, LocalRef) and lhs.name in (nxt, me)):
                lhs, rhs = rhs, lhs
                pred = _SWAP.get(pred, "")
            if not isinstance(lhs, LocalRef) or lhs.name not in (nxt, me):
                return None
            compared_next = lhs.name == nxt
            bound_r = self.int_range(ty, rhs)
            if pred in ("ult", "ule", "slt", "sle"):
                signed = pred[0] == "s"
                if sign is not None and sign != signed:
                    return None
                sign = signed
                b = srange(bound_r, w) if signed else urange(bound_r, w)
                top = b.hi - 1 if pred.endswith("lt") else b.hi
                his.append(top if compared_next else top + step)
            elif pred == "ne":
                # exact counting: every init equal, the bound a constant reached exactly, and
                # this the loop's only back edge (another could step past the bound)
                if not isinstance(bound_r, Range) or len(backs) != 1:
                    return None
                bound = bound_r
                if bound.lo != bound.hi or any(r.lo != r.hi for r in inits):
                    return None
                start = inits[0].lo
                if any(r.lo != start for r in inits) or bound.lo <= start or (bound.lo - start) % step:
                    return None
                top = bound.lo - step if compared_next else bound.lo
                his.append(top)
                los.append(start)
            else:
                return None
        lo = min(r.lo for r in inits)
        hi = max([r.hi for r in inits] + his)
        if sign is None:
            # only 'ne' exits: the values run from the start up to the bound, no wrap
            return fit(lo, hi, w)
        init_ok = all((r.lo >= 0 and r.hi < (1 << w)) if not sign else (r.hi < (1 << (w - 1))) for r in inits)
        limit = (1 << (w - 1)) if sign else (1 << w)
        # the increment of any value up to the bound must not wrap
        if not init_ok or lo < (-(1 << (w - 1)) if sign else 0) or \
                max(hi, *his) + max(s for s, _, _, _ in backs) >= limit:
            return None
        return fit(lo, hi, w)

    def _step_of(self, v: Value, me: str, w: int) -> int | None:
        """``c`` when ``v`` is ``add me, c`` with a constant ``c > 0``."""
        if not isinstance(v, LocalRef):
            return None
        inst = self.fn.by_name.get(v.name)
        if inst is None or inst.opcode not in ("add", "or"):
            return None
        ops = opparse.parse(self.mod, inst)
        if ops.kind != "binop" or ops.flags[0] != "add":
            return None
        (_, a), (_, b) = ops.operands
        if isinstance(b, LocalRef) and b.name == me:
            a, b = b, a
        if not (isinstance(a, LocalRef) and a.name == me):
            return None
        c = const_range(b, w)
        if c is None or c.lo <= 0:
            return None
        return c.lo

    def _back_edge_condition(self, latch: str, header: int) -> tuple[str, Value, Value] | None:
        """(pred, lhs, rhs) such that the edge latch -> block ``header`` is taken only when it
        holds: the latch ends in ``br i1 %c`` to two blocks (``Function.successors``), one
        of them the header, and ``%c`` is an integer ``icmp``."""
        term = self._terminator(latch)
        if term is None or term.opcode != "br":
            return None
        br = opparse.parse(self.mod, term)
        targets = self.fn.successors[term.block]
        if not br.operands or not isinstance(br.operands[0][1], LocalRef) or len(targets) != 2:
            return None
        t_block, f_block = targets
        if t_block == f_block:
            return None
        if t_block == header:
            negate = False
        elif f_block == header:
            negate = True
        else:
            return None
        cmp = self.fn.by_name.get(br.operands[0][1].name)
        if cmp is None or cmp.opcode != "icmp":
            return None
        pred = icmp_predicate(self.mod.text, cmp.start, cmp.end)
        ops = opparse.parse(self.mod, cmp)
        if pred is None or ops.kind != "cmp" or ops.operands[0][0].kind != "int":
            return None
        if negate:
            pred = _NEGATE.get(pred, "")
        return pred, ops.operands[0][1], ops.operands[1][1]



#: the labels ``_read_phi_labels`` found in a phi's text (None: not read), by the text
_LABELS_SEEN: dict[str, tuple[str, ...] | None] = {}
#: the most texts ``_LABELS_SEEN`` holds before it starts again
LABELS_SEEN_LIMIT = 1 << 12


def _read_phi_labels(text: str) -> tuple[str, ...] | None:
    """The incoming labels of a phi's text, in order, or None when one is not a plain local."""
    toks = tokenize(text)
    labels: list[str] = []
    depth = 0
    last_local: str | None = None
    for t in toks:
        if t.text == "[":
            depth += 1
            last_local = None
        elif t.text == "]":
            depth -= 1
            if last_local is None:
                return None
            labels.append(canon_name(last_local))
        elif depth == 1 and t.kind == "local":
            last_local = t.text
        elif t.kind == "metadata" and depth == 0:
            break
    return tuple(labels)


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, LocalRef) and isinstance(b, LocalRef):
        return a.name == b.name
    ca, cb = int_const(a), int_const(b)
    return ca is not None and ca == cb



_SWAP = {"ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule", "slt": "sgt", "sgt": "slt", "sle": "sge",
         "sge": "sle", "eq": "eq", "ne": "ne"}
_NEGATE = {"ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule", "slt": "sge", "sge": "slt", "sle": "sgt",
           "sgt": "sle", "eq": "ne", "ne": "eq"}


__all__ = ["LoopRanges"]
