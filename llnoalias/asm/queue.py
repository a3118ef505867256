"""The replay of each wave's in-order queues over a function's control flow.

One queue per counter: the vector-memory queue (``vmcnt``, gfx12's ``loadcnt``: loads and the
LDS-DMAs of gfx9-gfx12) and, on gfx1250, ``asynccnt`` (the per-lane asynchronous LDS loads and
stores) and ``tensorcnt`` (the tensor data mover). An operation counts only among the operations
of its own queue, and only a wait on its own counter (``s_wait_tensorcnt N``, ``s_wait_asynccnt
N``, a combined form) retires it.

The state at a point maps every vector-memory operation (by instruction index) that may still
be outstanding to the fewest operations issued after it on any path reaching the point: its
position from the newest. An issue adds itself at 0 and moves every other one back by one (at
64 newer ones it is gone: the counter has 6 bits); ``vmcnt(N)`` (gfx12: ``loadcnt``) keeps the
N newest. Blocks join by union with the smaller count; a worklist iterates to the fixpoint
(counts only fall and entries only join, both bounded). Stores are in the queue only on gfx9,
where ``vmcnt`` counts them; from gfx10 on they have a counter of their own.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from .reader import ASYNC_COUNTERS, BARRIER, DMA, LDS, VMEM_LOAD, VMEM_STORE, AsmFunction, AsmInst

#: an operation with this many newer ones is no longer counted (6-bit counter)
DEPTH = 64

State = dict[int, int]


@dataclass(frozen=True, slots=True)
class WaitInfo:
    """A wait with a ``vmcnt`` (``loadcnt``) field, the operations it may retire, and why it is there:
    ``producer`` (the producer's inline assembly), ``needed`` (``needed_by`` reads what it retires),
    ``barrier`` (an ``s_barrier`` comes first, ``needed_by`` is it) or ``none``."""

    index: int
    value: int
    retires: tuple[int, ...]
    cause: str
    needed_by: int | None = None
    #: the counter it waits on (``vmcnt``/``loadcnt``, ``asynccnt``, ``tensorcnt``)
    counter: str = field(default="", compare=False)


def counter_of(generation: int) -> str:
    """The wait field that retires loads and LDS-DMAs."""
    return "loadcnt" if generation >= 12 else "vmcnt"


def in_queue(inst: AsmInst, generation: int) -> bool:
    """Whether ``inst`` takes a place in the queue ``counter_of(generation)`` counts."""
    if inst.queue:
        return False
    if inst.kind in (DMA, VMEM_LOAD):
        return True
    return inst.kind == VMEM_STORE and generation < 10


def queue_of(inst: AsmInst, generation: int) -> str:
    """The counter whose queue ``inst`` takes a place in ("": none)."""
    if inst.queue:
        return inst.queue
    return counter_of(generation) if in_queue(inst, generation) else ""


def queues(fn: AsmFunction, generation: int) -> list[str]:
    """``queue_of`` of each instruction of ``fn``, by index."""
    return [queue_of(i, generation) for i in fn.insts]


def counters(generation: int) -> tuple[str, ...]:
    """The wait fields that retire an entry of some queue."""
    return (counter_of(generation), *ASYNC_COUNTERS) if generation >= 12 else (counter_of(generation),)


def step(state: State, inst: AsmInst, generation: int, field_name: str, qs: list[str] | None = None) -> State:
    """The state after ``inst`` (``qs``: ``queues`` of the function; None: every entry is of the
    vector-memory queue, ``field_name``)."""
    q = inst.queue or (field_name if in_queue(inst, generation) else "")
    if q:
        if qs is None:
            out = {k: v + 1 for k, v in state.items() if v + 1 < DEPTH}
        else:
            out = {k: (v + 1 if qs[k] == q else v) for k, v in state.items() if qs[k] != q or v + 1 < DEPTH}
        out[inst.index] = 0
        return out
    if not inst.wait:
        return state
    if qs is None:
        n = inst.wait.get(field_name)
        return {k: v for k, v in state.items() if v < n} if n is not None else state
    if not any(c in inst.wait for c in (field_name, *ASYNC_COUNTERS)):
        return state
    out = {}
    for k, v in state.items():
        n = inst.wait.get(qs[k])
        if n is None or v < n:
            out[k] = v
    return out


def _join(into: State, other: State) -> bool:
    changed = False
    for k, v in other.items():
        old = into.get(k)
        if old is None or v < old:
            into[k] = v
            changed = True
    return changed


@dataclass
class Replay:
    fn: AsmFunction
    generation: int
    #: block -> state at its entry (None: not reached)
    entry: list[State | None]
    _before: dict[int, list[State]] = field(default_factory=dict)
    _waits: list[WaitInfo] | None = None
    qs: list[str] = field(default_factory=list)

    @property
    def field_name(self) -> str:
        return counter_of(self.generation)

    def _states(self, b: int) -> list[State]:
        """The state before each instruction of block ``b``."""
        got = self._before.get(b)
        if got is None:
            blk = self.fn.blocks[b]
            s = self.entry[b]
            got = []
            if s is not None:
                for i in range(blk.first, blk.last + 1):
                    got.append(s)
                    s = step(s, self.fn.insts[i], self.generation, self.field_name, self.qs)
            self._before[b] = got
        return got

    def before(self, index: int) -> State:
        """Every operation possibly outstanding just before instruction ``index``."""
        b = self.fn.block_of(index)
        states = self._states(b)
        return states[index - self.fn.blocks[b].first] if states else {}

    def pending_dmas(self, index: int) -> dict[int, int]:
        """The LDS-DMAs possibly outstanding just before ``index``: DMA index -> fewest newer ops."""
        return {k: v for k, v in self.before(index).items() if self.fn.insts[k].kind == DMA}

    def _run(self, b: int, start: int, stop: int, c: int, dma: int) -> int | None:
        """The count of ``dma`` after running block ``b`` from ``start`` up to ``stop`` (not
        included) with ``c`` newer ones at ``start``; None once retired. Passing ``dma`` itself
        issues it anew."""
        f = self.qs[dma] if self.qs else self.field_name
        cur: int | None = c
        for i in range(start, stop):
            inst = self.fn.insts[i]
            if i == dma:
                cur = 0
            elif cur is not None and (self.qs[i] == f if self.qs else in_queue(inst, self.generation)):
                cur = cur + 1 if cur + 1 < DEPTH else None
            elif cur is not None and inst.wait and f in inst.wait and cur >= inst.wait[f]:
                cur = None
        return cur

    def path(self, dma: int, index: int) -> list[str]:
        """Block labels of a shortest path from ``dma`` to ``index`` along which ``dma`` stays
        outstanding (re-simulated along the path); [] when there is none."""
        fn = self.fn
        if not fn.blocks:
            return []
        b0, bt = fn.block_of(dma), fn.block_of(index)
        blk0 = fn.blocks[b0]
        if b0 == bt and index > dma:
            if self._run(b0, dma + 1, index, 0, dma) is not None:
                return [blk0.label]
        c0 = self._run(b0, dma + 1, blk0.last + 1, 0, dma)
        if c0 is None:
            return []
        parent: dict[tuple[int, int], tuple[int, int] | None] = {}
        queue: deque[tuple[int, int]] = deque()
        for s in blk0.succs:
            if (s, c0) not in parent:
                parent[(s, c0)] = None
                queue.append((s, c0))
        while queue:
            b, c = queue.popleft()
            blk = fn.blocks[b]
            if b == bt and self._run(b, blk.first, index, c, dma) is not None:
                labels = [blk.label]
                at: tuple[int, int] | None = parent[(b, c)]
                while at is not None:
                    labels.append(fn.blocks[at[0]].label)
                    at = parent[at]
                return [blk0.label, *reversed(labels)]
            end = self._run(b, blk.first, blk.last + 1, c, dma)
            if end is None:
                continue
            for s in blk.succs:
                if (s, end) not in parent:
                    parent[(s, end)] = (b, c)
                    queue.append((s, end))
        return []

    @property
    def waits(self) -> list[WaitInfo]:
        """Every wait on a queue's counter (``vmcnt``, gfx12 ``loadcnt``, ``asynccnt``,
        ``tensorcnt``), one per counter it names, with its cause."""
        if self._waits is None:
            self._waits = self._find_waits()
        return self._waits

    def waits_index(self) -> list[int]:
        """The instruction index of each of ``waits``, in order."""
        return [w.index for w in self.waits]

    def _find_waits(self) -> list[WaitInfo]:
        out: list[WaitInfo] = []
        qs = self.qs
        for inst in self.fn.insts:
            if not inst.wait:
                continue
            for f in counters(self.generation):
                if f not in inst.wait:
                    continue
                n = inst.wait[f]
                retires = tuple(sorted(k for k, v in self.before(inst.index).items()
                                       if v >= n and (qs[k] if qs else self.field_name) == f))
                if inst.producer_asm:
                    out.append(WaitInfo(inst.index, n, retires, "producer", counter=f))
                    continue
                cause, by = self._cause(inst.index, retires, f)
                out.append(WaitInfo(inst.index, n, retires, cause, by, f))
        return out

    def _cause(self, index: int, retires: tuple[int, ...], f: str = "") -> tuple[str, int | None]:
        fn = self.fn
        written: set[str] = set()
        any_dma = False
        for k in retires:
            op = fn.insts[k]
            any_dma |= op.kind == DMA
            if op.kind == VMEM_LOAD:
                written.update(op.dests)
        blk = fn.blocks[fn.block_of(index)]
        f = f or self.field_name
        for j in range(index + 1, blk.last + 1):
            inst = fn.insts[j]
            if inst.wait and f in inst.wait:
                break
            if written and (written.intersection(inst.uses) or written.intersection(inst.dests)):
                return "needed", j
            if any_dma and (inst.kind == LDS or inst.may_lds):
                return "needed", j
            if inst.kind == BARRIER:
                return "barrier", j
        return "none", None


def replay(fn: AsmFunction, generation: int) -> Replay:
    """The fixpoint of the queue over ``fn``'s blocks."""
    f = counter_of(generation)
    qs = queues(fn, generation)
    nb = len(fn.blocks)
    entry: list[State | None] = [None] * nb
    if not nb:
        return Replay(fn, generation, entry, qs=qs)
    entry[0] = {}
    work = deque([0])
    queued = {0}
    while work:
        b = work.popleft()
        queued.discard(b)
        s = entry[b]
        assert s is not None
        blk = fn.blocks[b]
        for i in range(blk.first, blk.last + 1):
            s = step(s, fn.insts[i], generation, f, qs)
        for t in blk.succs:
            cur = entry[t]
            if cur is None:
                entry[t] = dict(s)
                changed = True
            else:
                changed = _join(cur, s)
            if changed and t not in queued:
                queued.add(t)
                work.append(t)
    return Replay(fn, generation, entry, qs=qs)

