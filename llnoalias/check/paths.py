"""Whether an assembly path may run under a witness's assumed arguments (design 4b, step 6).

A witness that assumes every integer kernel argument has one value (``pairs.ASSUMED``) fixes the
trip counts; the path the replay gives from the DMA to the access must be one the IR allows under
them, judged in the loop context it is in at each block.
"""

from __future__ import annotations

import re

from ..asm.reader import AsmFunction
from .exact import FunctionExact
from .iterations import Ctx, Iterations
from .pairs import join_feasible


def path_feasible(fx: FunctionExact, ir_blocks: list[tuple[set[int], Ctx]],
                  args: tuple[tuple[str, int], ...]) -> bool:
    """Whether a path of the assembly may run with the integer arguments at ``args`` (a witness
    that assumes a trip count). ``ir_blocks``: the IR blocks each of its assembly blocks holds
    instructions of, in order, with the loop context the path is in there (a path from a copy in
    one iteration to a read after the loop's exit is judged in the copy's iteration up to the
    back edge, and in the exit's after it). No block of the path may stand only for IR blocks that
    a condition every thread shares keeps out under them; and between two consecutive blocks that
    name IR blocks (the code generator's own blocks between them name none: a structurizer's flow
    block), some IR path must run through blocks that are kept in, in either's context, and that
    hold no wait (a path through a wait may retire the DMA: the race is not claimed on it)."""
    labels = fx.fn.blocks
    ok: dict[tuple[int, Ctx], bool] = {}

    def feasible(b: int, ctx: Ctx) -> bool:
        key = (b, ctx)
        if key not in ok:
            ok[key] = b >= len(labels) or join_feasible(fx, labels[b], ctx, args)
        return ok[key]

    named = [(bs, ctx) for bs, ctx in ir_blocks if bs]
    for blocks, ctx in named:
        if not any(feasible(b, ctx) for b in blocks):
            return False
    succ = fx.fn.successors
    waits = _wait_blocks(fx)
    for (here, c0), (there, c1) in zip(named, named[1:], strict=False):
        if here & there:
            continue
        seen = set(here)
        stack = [b for b in here if feasible(b, c0)]
        found = False
        while stack and not found:
            b = stack.pop()
            for n in succ[b] if b < len(succ) else ():
                if n in there:
                    found = True
                    break
                if n in seen or not (feasible(n, c0) or feasible(n, c1)) or n in waits:
                    continue
                seen.add(n)
                stack.append(n)
        if not found:
            return False
    return True


def _wait_blocks(fx: FunctionExact) -> set[int]:
    """The IR blocks holding a wait on an asynchronous counter or ``s.waitcnt``."""
    return {inst.block for inst in fx.fn.instrs if inst.opcode == "call" and
            _WAIT_CALL.search(fx.mod.text[inst.opstart:inst.end])}


_WAIT_CALL = re.compile(r"@llvm\.amdgcn\.(?:s\.wait\.|s\.waitcnt\b|wait\.asyncmark)")


def runs_with(fn: AsmFunction, fx: FunctionExact, it: Iterations, line_block: dict[int, int],
              path: tuple[str, ...], cd: Ctx, ca: Ctx, assumes: dict[str, int]) -> bool:
    """``path_feasible`` of an assembly path (block labels) from a DMA in context ``cd`` to an
    access in ``ca``: the contexts along it are followed edge by edge from ``cd``; where they do
    not end in ``ca`` (the path is not the one of this pair of contexts) every block is judged in
    ``ca``."""
    by_label = {b.label: i for i, b in enumerate(fn.blocks)}
    idx = [by_label.get(label) for label in path]
    ctxs: list[Ctx] = []
    ctx = cd
    prev: int | None = None
    for b in idx:
        if prev is not None and b is not None:
            moved = it.edge(prev, b, ctx)
            if moved is None:
                break  # not a way of these contexts: judged in the access's below
            ctx = moved[0]
        ctxs.append(ctx)
        prev = b
    if len(ctxs) != len(idx) or ctxs[-1] != ca:
        ctxs = [ca] * len(idx)
    ir_blocks: list[tuple[set[int], Ctx]] = []
    for b, ctx in zip(idx, ctxs, strict=True):
        if b is None:
            continue
        blk = fn.blocks[b]
        got = {line_block[i.ir_line] for i in fn.insts[blk.first:blk.last + 1]
               if i.ir_line and i.ir_line in line_block}
        ir_blocks.append((got, ctx))
    return path_feasible(fx, ir_blocks, tuple(sorted(assumes.items())))


__all__ = ["path_feasible", "runs_with"]
