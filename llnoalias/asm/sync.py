"""The replay of each wave's queue and of the barriers between waves, per loop context.

``queue.replay`` says which LDS-DMAs may be in flight at a point of one wave. Two more things
decide a race (design 4b, "exact"):

- **Which iteration.** A node of this replay is a block *and a context*: the caller's
  numbering of the loops' states (``edge`` gives the context after an edge, e.g. the next
  stage across a loop's back edge). An entry of the state is an operation *with the context it
  was issued in*, so a DMA into the next stage's slot and a read of this stage's slot are
  compared at the states they run in, not as the union of every stage.
- **Which wave.** A DMA's bytes are safe for *another* wave's access only where the issuing wave
  retired the DMA and then passed a barrier that the other wave passes before the access (gfx90a
  and later do not wait at ``s_barrier``). So an entry is not dropped when the queue retires it:
  its count becomes ``RETIRED``, and only a barrier passed in that state drops it (gfx12's split
  barrier: ``s_barrier_signal`` after the retirement, then ``s_barrier_wait``). And an access
  of LDS is remembered until the next barrier: a DMA that another wave issues before then may
  overwrite bytes it still reads.

An entry's value is the fewest operations issued after it on any path (``RETIRED``/``SIGNALED``
above every count): every step is monotone in it, so the join by minimum is exact per entry.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .queue import DEPTH, queues
from .reader import DMA, AsmFunction

#: retired from the issuing wave's queue, no barrier passed since
RETIRED = DEPTH
#: retired, then a split barrier signalled: dropped at the wave's ``s_barrier_wait``
SIGNALED = DEPTH + 1

Ctx = tuple[int, ...]
#: an operation, the context it ran in, and whether a back edge may have been crossed since
Key = tuple[int, Ctx, bool]


@dataclass(slots=True)
class Node:
    pending: dict[Key, int] = field(default_factory=dict)
    reads: set[Key] = field(default_factory=set)

    def copy(self) -> Node:
        return Node(dict(self.pending), set(self.reads))

    def crossed(self) -> Node:
        """The node after a back edge: every entry may be from an earlier iteration."""
        out = Node({}, {(i, c, True) for i, c, _ in self.reads})
        for (i, c, _), v in self.pending.items():
            k = (i, c, True)
            old = out.pending.get(k)
            out.pending[k] = v if old is None else min(old, v)
        return out

    def join(self, other: Node) -> bool:
        changed = False
        for k, v in other.pending.items():
            old = self.pending.get(k)
            if old is None or v < old:
                self.pending[k] = v
                changed = True
        if not other.reads <= self.reads:
            self.reads |= other.reads
            changed = True
        return changed


@dataclass(slots=True)
class SyncResult:
    """At each LDS access: per context it runs in, the DMAs not yet synchronized (with counts:
    below ``RETIRED`` still in this wave's queue). At each DMA: per context, the accesses of
    LDS no barrier separates from it."""

    at_access: dict[int, list[tuple[Ctx, dict[Key, int]]]] = field(default_factory=dict)
    at_dma: dict[int, list[tuple[Ctx, set[Key]]]] = field(default_factory=dict)
    contexts: set[tuple[int, Ctx]] = field(default_factory=set)


def _step(node: Node, fn: AsmFunction, i: int, ctx: Ctx, qs: list[str], tracked: set[int]) -> None:
    inst = fn.insts[i]
    pend = node.pending
    q = qs[i]
    if q:
        # an issue moves back only the entries of its own queue (its counter's)
        for k, v in list(pend.items()):
            if v < RETIRED and qs[k[0]] == q:
                pend[k] = min(v + 1, RETIRED)
        if inst.kind == DMA:
            pend[(i, ctx, False)] = 0
        return
    if inst.wait and any(qs[k[0]] in inst.wait for k in pend):
        for k, v in list(pend.items()):
            n = inst.wait.get(qs[k[0]])
            if n is not None and n <= v < RETIRED:
                pend[k] = RETIRED
        return
    m = inst.mnemonic
    if m == "s_barrier" or m == "s_barrier_wait":
        drop = (RETIRED, SIGNALED) if m == "s_barrier" else (SIGNALED,)
        for k, v in list(pend.items()):
            if v in drop:
                del pend[k]
        if m == "s_barrier":
            node.reads.clear()
        return
    if m.startswith("s_barrier_signal"):
        for k, v in list(pend.items()):
            if v == RETIRED:
                pend[k] = SIGNALED
        node.reads.clear()
        return
    if i in tracked:
        node.reads.add((i, ctx, False))


def replay_sync(fn: AsmFunction, generation: int, tracked: set[int], start: Ctx,
                edge: Callable[[int, int, Ctx], tuple[Ctx, bool] | None],
                skip: frozenset[tuple[int, int]] = frozenset()) -> SyncResult:
    """The fixpoint over (block, context) from the entry in context ``start``; ``tracked``: the
    LDS accesses to judge and to remember for the DMAs that follow them; ``edge(b, t, ctx)``: the
    context after the edge from block ``b`` to ``t`` and whether it is a loop's back edge (None:
    the edge is not taken in that context);
    ``skip``: edges not taken (those the replayed waves never take, ``check.waves``)."""
    qs = queues(fn, generation)
    res = SyncResult()
    if not fn.blocks:
        return res
    entry: dict[tuple[int, Ctx], Node] = {(0, start): Node()}
    work: deque[tuple[int, Ctx]] = deque([(0, start)])
    queued = {(0, start)}
    while work:
        key = work.popleft()
        queued.discard(key)
        b, ctx = key
        node = entry[key].copy()
        blk = fn.blocks[b]
        for i in range(blk.first, blk.last + 1):
            _step(node, fn, i, ctx, qs, tracked)
        for t in blk.succs:
            if (b, t) in skip:
                continue
            got = edge(b, t, ctx)
            if got is None:
                continue  # no thread takes it in this context
            nctx, back = got
            nk = (t, nctx)
            out = node.crossed() if back else node
            cur = entry.get(nk)
            if cur is None:
                entry[nk] = out.copy()
                changed = True
            else:
                changed = cur.join(out)
            if changed and nk not in queued:
                queued.add(nk)
                work.append(nk)
    for (b, ctx), start_node in entry.items():
        res.contexts.add((b, ctx))
        node = start_node.copy()
        blk = fn.blocks[b]
        for i in range(blk.first, blk.last + 1):
            inst = fn.insts[i]
            if inst.kind == DMA:
                res.at_dma.setdefault(i, []).append((ctx, set(node.reads)))
            elif i in tracked:
                res.at_access.setdefault(i, []).append((ctx, dict(node.pending)))
            _step(node, fn, i, ctx, qs, tracked)
    return res


__all__ = ["RETIRED", "SIGNALED", "Ctx", "SyncResult", "replay_sync"]
