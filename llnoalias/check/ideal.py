"""The ideal wait count: each wait's loosest safe count (``check --waits``, design 4b), one per
counter it names (``vmcnt``/``loadcnt``, and gfx1250's ``asynccnt`` and ``tensorcnt``: the N of a
``tensor_wait(N)`` that FlyDSL's developers derive by hand from the copies in flight).

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

from ..asm.queue import Replay
from ..asm.reader import VMEM_LOAD, AsmFunction

#: a (DMA, access) pair the judge reports, by their lines, and how
Pair = tuple[object, ...]

#: the counter's largest count (6 bits)
TOP = 63
#: waits of one function beyond which their loosest counts are not searched
MAX_WAITS = 48


def _register_bound(fn: AsmFunction, rp: Replay, index: int, f: str) -> int:
    """The largest count that keeps every load retired whose registers are read after the wait at
    ``index`` before the next wait on ``f`` (in its block, and in each block it goes on to); the
    asynchronous LDS operations write no register."""
    if f != rp.field_name:
        return TOP
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
                   pairs: Callable[[], set[Pair]]) -> dict[tuple[int, str], int]:
    """Per wait and counter (its instruction index, the field), the loosest safe count (see the
    module's docstring): ``base`` the pairs the judge reports as the function is, ``pairs()`` what
    it reports again."""
    waits = [(w.index, w.counter or rp.field_name) for w in rp.waits]
    if len(waits) > MAX_WAITS:
        return {}
    out: dict[tuple[int, str], int] = {}

    def safe(index: int, n: int, f: str) -> bool:
        inst = fn.insts[index]
        old = inst.wait[f]
        inst.wait[f] = n
        try:
            got = pairs()
        finally:
            inst.wait[f] = old
        return got <= base

    for index, f in waits:
        value = fn.insts[index].wait[f]
        hi = _register_bound(fn, rp, index, f)
        if hi <= value:
            out[(index, f)] = value
            continue
        lo = value  # safe: it is the program's own
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if safe(index, mid, f):
                lo = mid
            else:
                hi = mid - 1
        out[(index, f)] = lo if lo == value or safe(index, lo, f) else value
    return out


__all__ = ["MAX_WAITS", "TOP", "loosest_counts"]
