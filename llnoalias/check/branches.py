"""Which IR edge each two-way branch of the assembly takes (design 4b).

An assembly block that ends in a two-way branch and whose last IR line is of an IR block ending in
a conditional ``br`` is that branch, where its two successors begin the IR block's two
successors: each successor is matched to the first IR block its instructions name, past
instructions of the block and of the blocks that dominate it (the code generator sinks a compare,
or an address computed early, into a successor) and through assembly blocks of one successor that
hold nothing else; an IR block that a successor reaches through IR blocks of nothing but phis and
a ``br`` (the join before a loop, which no assembly line names) stands for that successor.
Elsewhere no edge is matched. ``check.waves`` prunes, per wave, the ways its wave id never
takes; ``check.iterations`` the ways a loop state never takes (a constant trip count).
"""

from __future__ import annotations

from ..asm.reader import AsmFunction
from ..ir.cfg import control_flow
from ..ir.lexer import tokenize
from ..ir.model import Function, Instruction
from .exact import FunctionExact


def ir_block(fn: AsmFunction, b: int, line_block: dict[int, int], *, last: bool) -> int | None:
    """The IR block of the first (``last``: the last) instruction of assembly block ``b`` that
    names an IR line (``line_block``: IR line -> IR block); None where none does."""
    blk = fn.blocks[b]
    idx = range(blk.last, blk.first - 1, -1) if last else range(blk.first, blk.last + 1)
    for i in idx:
        ln = fn.insts[i].ir_line
        if ln and ln in line_block:
            return line_block[ln]
    return None


def _forwarding(fn: Function) -> dict[int, int]:
    """The IR blocks that hold nothing but phis and an unconditional ``br`` (no assembly line
    names them), each with the block it goes on to."""
    count: dict[int, int] = {}
    opcodes: dict[int, set[str]] = {}
    for inst in fn.instrs:
        count[inst.block] = count.get(inst.block, 0) + 1
        opcodes.setdefault(inst.block, set()).add(inst.opcode)
    out: dict[int, int] = {}
    for b, ss in enumerate(fn.successors):
        if len(ss) == 1 and opcodes.get(b, set()) <= {"phi", "br"}:
            out[b] = ss[0]
    return out


def _aliases(targets: tuple[int, int], fwd: dict[int, int]) -> dict[int, int]:
    """Each target, and each block a target reaches through forwarding blocks alone, with the
    target it stands for (a block both reach stands for neither)."""
    out: dict[int, int] = {}
    both: set[int] = set()
    for x in targets:
        y, seen = x, 0
        while True:
            if y in out and out[y] != x:
                both.add(y)
            out.setdefault(y, x)
            if y not in fwd or seen >= 4:
                break
            y, seen = fwd[y], seen + 1
    for x in targets:
        out[x] = x
    for y in both - set(targets):
        del out[y]
    return out


def _entered(fn: AsmFunction, s: int, above: set[int], targets: tuple[int, int],
             line_block: dict[int, int], fwd: dict[int, int]) -> int | None:
    """Which of ``targets`` (the IR successors of a block) the assembly block ``s`` begins: the
    first of them its instructions name, past instructions of the block and of the blocks that
    dominate it (``above``: the code generator sinks a compare, or an address computed early,
    into a successor) and through blocks of one successor that hold nothing else; a block that
    a target reaches through IR blocks holding only a ``br`` (``fwd``: the join before a loop,
    which no assembly line names) stands for that target. None where another IR block comes
    first."""
    alias = _aliases(targets, fwd)
    for _ in range(4):
        blk = fn.blocks[s]
        for i in range(blk.first, blk.last + 1):
            ln = fn.insts[i].ir_line
            ib = line_block.get(ln) if ln else None
            if ib is None or ib in above:
                continue
            return alias.get(ib)
        if len(blk.succs) != 1:
            return None
        s = blk.succs[0]
    return None


def _condition(fx: FunctionExact, last: Instruction | None) -> str | None:
    """The condition of ``last``, the instruction that ends an IR block, where it is a conditional
    ``br``; None for any other end."""
    if last is None or last.opcode != "br":
        return None
    toks = [tk for tk in tokenize(fx.mod.text[last.opstart:last.end]) if tk.kind == "local"]
    return toks[0].text if len(toks) == 3 else None


#: per assembly block: (IR block, its ``br``'s condition, each assembly successor -> 1 true / 0 false)
Branches = dict[int, tuple[int, str, dict[int, int]]]


def ir_branches(fn: AsmFunction, fx: FunctionExact) -> Branches:
    """Per assembly block matched to an IR conditional branch (see the module's docstring): the
    IR block, its condition, and each assembly successor with 1 (it begins the ``br``'s true
    successor) or 0 (the false one)."""
    line_block = {inst.line: inst.block for inst in fx.fn.instrs}
    last_of = {inst.block: inst for inst in fx.fn.instrs}
    fwd = _forwarding(fx.fn)
    succ = fx.fn.successors
    _, idom = control_flow(succ)
    out: Branches = {}
    for b, blk in enumerate(fn.blocks):
        if len(blk.succs) != 2 or blk.succs[0] == blk.succs[1]:
            continue
        b1 = ir_block(fn, b, line_block, last=True)
        if b1 is None or len(succ[b1]) != 2 or succ[b1][0] == succ[b1][1]:
            continue
        cond = _condition(fx, last_of.get(b1))
        if cond is None:
            continue
        t, f = succ[b1]
        above = {b1}
        up = idom[b1]
        while up >= 0 and up not in above:
            above.add(up)
            up = idom[up]
        firsts = [_entered(fn, s, above, (t, f), line_block, fwd) for s in blk.succs]
        if set(firsts) != {t, f}:
            continue
        out[b] = (b1, cond, {s: int(x == t) for s, x in zip(blk.succs, firsts, strict=True)})
    return out


__all__ = ["Branches", "ir_block", "ir_branches"]
