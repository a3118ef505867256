"""The ideal wait count: each ``vmcnt`` wait's loosest safe count (``check --waits``, design 4b).

A wait ``vmcnt(N)`` keeps the N newest operations in flight. Raising N is safe while (1) no
(DMA, access) pair the judge reports for the function, race or unproven, is added (the judge is
run again with the wait at the higher count: the exact footprints' verdicts are kept between
runs), and (2) every load whose destination registers are read after the wait, before the next
wait of its block or of a block it falls or branches into, stays retired: ``N`` at most the
fewest operations issued after it on any path (``queue.Replay.before``). The search is a
bisection between the wait's own count and the counter's top (63), taking "looser is never
safer" for granted, and the count it ends on is judged once more. The top means nothing needs the
wait. Functions with more than ``MAX_WAITS`` waits are left out (each trial judges again).
"""

from __future__ import annotations

from collections.abc import Callable

from ..asm.queue import Replay, counter_of
from ..asm.reader import VMEM_LOAD, AsmFunction

#: a (DMA, access) pair the judge reports, by their lines, and how
Pair = tuple[object, ...]

#: the counter's largest count (6 bits)
TOP = 63
#: waits of one function beyond which their loosest counts are not searched
MAX_WAITS = 48


def _register_bound(fn: AsmFunction, rp: Replay, index: int) -> int:
    """The largest count that keeps every load retired whose registers are read after the wait at
    ``index`` before the next wait (in its block, and in each block it goes on to)."""
    f = rp.field_name
    state = rp.before(index)
    pending = {k: v for k, v in state.items() if fn.insts[k].kind == VMEM_LOAD and fn.insts[k].dests}
    if not pending:
        return TOP
    blk_i = fn.block_of(index)
    reads: set[str] = set()
    stop = False
    for j in range(index + 1, fn.blocks[blk_i].last + 1):
        inst = fn.insts[j]
        if inst.wait and f in inst.wait:
            stop = True
            break
        reads.update(inst.uses)
    if not stop:
        for s in fn.blocks[blk_i].succs:
            blk = fn.blocks[s]
            for j in range(blk.first, blk.last + 1):
                inst = fn.insts[j]
                if inst.wait and f in inst.wait:
                    break
                reads.update(inst.uses)
    bound = TOP
    for k, count in pending.items():
        if reads.intersection(fn.insts[k].dests):
            bound = min(bound, count)
    return bound


def loosest_counts(fn: AsmFunction, generation: int, rp: Replay, base: set[Pair],
                   pairs: Callable[[], set[Pair]]) -> dict[int, int]:
    """Per wait (its instruction index), the loosest safe count (see the module's docstring):
    ``base`` the pairs the judge reports as the function is, ``pairs()`` what it reports again."""
    f = counter_of(generation)
    waits = [i.index for i in fn.insts if i.wait and f in i.wait]
    if len(waits) > MAX_WAITS:
        return {}
    out: dict[int, int] = {}

    def safe(index: int, n: int) -> bool:
        inst = fn.insts[index]
        old = inst.wait[f]
        inst.wait[f] = n
        try:
            got = pairs()
        finally:
            inst.wait[f] = old
        return got <= base

    for index in waits:
        value = fn.insts[index].wait[f]
        hi = _register_bound(fn, rp, index)
        if hi <= value:
            out[index] = value
            continue
        lo = value  # safe: it is the program's own
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if safe(index, mid):
                lo = mid
            else:
                hi = mid - 1
        out[index] = lo if lo == value or safe(index, lo) else value
    return out


__all__ = ["MAX_WAITS", "TOP", "loosest_counts"]
