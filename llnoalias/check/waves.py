"""Which branches of the assembly each wave takes, where its wave id decides them (design 4b).

A wave-specialized kernel (FlyDSL's gfx1250 GEMMs: ``if wave == 0: copy A``, ``if wave == 1:
copy B``, every iteration) has branches that every lane of a wave takes the same way, and that
way is the same in every iteration: the condition reads the wave's id (``readfirstlane`` of
``tid / 32``), no loop state and no kernel argument. The joint replay (``asm.sync``) walks every
path as if one wave could take it, so it counts a path on which wave 1 skips its own copy in some
iteration: its queue then holds fewer newer copies, a ``tensor_wait(N)`` retires less, and a
later read is reported as racing a copy that wave 1 retired long before.

Here each wave's branch directions are found once: for every IR block that ends in a conditional
``br``, its condition evaluated in every thread with every loop past its known states and no
kernel argument assumed (so only what is fixed for the whole run is known); where all lanes of a
wave agree, the other way out of the block is one that wave never takes. Assembly edges are
matched to IR edges by ``check.branches``; elsewhere nothing is pruned. Waves with the
same pruned edges form one group, and the caller replays each group on its own control flow.
"""

from __future__ import annotations

from ..analysis.ranges.concrete import Unknown, at
from ..analysis.ranges.evolution import BEYOND
from ..asm.reader import DMA, AsmFunction
from ..asm.sync import Key, SyncResult, replay_sync
from ..ir.model import LocalRef
from .branches import Branches
from .exact import FunctionExact
from .iterations import Ctx, Iterations

Edge = tuple[int, int]


def _branch_directions(fx: FunctionExact, branches: Branches) -> dict[int, list[int | None]]:
    """Per IR block of ``branches`` (those matched to the assembly) whose condition some wave
    takes one way in every lane: per wave, 1 (true), 0 (false) or None (not known, or lanes
    differ)."""
    th = fx.threads
    assert th is not None
    ev = fx.evol.evaluator(tuple(BEYOND for _ in fx.evol.units))
    out: dict[int, list[int | None]] = {}
    for b, cond, _ in branches.values():
        if b in out:
            continue
        v = ev.value(None, LocalRef(cond))
        if isinstance(v, Unknown) or not isinstance(v, (int, tuple)) or isinstance(v, int):
            continue  # not known, or the same in every thread (no wave is told apart)
        dirs: list[int | None] = []
        for w in range(th.waves):
            lanes = {at(v, x) & 1 for x in range(w * th.wave, min((w + 1) * th.wave, th.count))}
            dirs.append(lanes.pop() if len(lanes) == 1 else None)
        if any(d is not None for d in dirs):
            out[b] = dirs
    return out


def wave_groups(fx: FunctionExact | None, branches: Branches) -> list[tuple[frozenset[Edge], tuple[int, ...]]]:
    """The waves in groups with the assembly edges none of them takes (of ``branches``, the
    function's branches matched to IR ones); empty where no edge is pruned for any wave (the
    joint replay is then every wave's)."""
    if fx is None or fx.threads is None or fx.threads.waves < 2:
        return []
    dirs = _branch_directions(fx, branches)
    if not dirs:
        return []
    waves = fx.threads.waves
    pruned: list[set[Edge]] = [set() for _ in range(waves)]
    for b, (b1, _cond, ways) in branches.items():
        if b1 not in dirs:
            continue
        for w, d in enumerate(dirs[b1]):
            if d is None:
                continue
            pruned[w].update((b, s) for s, way in ways.items() if way != d)
    if not any(pruned):
        return []
    groups: dict[frozenset[Edge], list[int]] = {}
    for w, es in enumerate(pruned):
        groups.setdefault(frozenset(es), []).append(w)
    return [(es, tuple(ws)) for es, ws in groups.items()]


def _is_barrier(mnemonic: str) -> bool:
    """Where the waves meet: ``s_barrier``, or a split barrier's ``s_barrier_wait``. Not its
    signal: a cluster barrier is signalled by one wave of the work-group
    (``if wave_id == 0: s_barrier_signal -3``) and waited for by all."""
    return mnemonic in ("s_barrier", "s_barrier_wait")


def pending_by_wave(fn: AsmFunction, generation: int, tracked: set[int], it: Iterations,
                    fx: FunctionExact | None, sync: SyncResult) -> dict[int, list[tuple[Ctx, dict[Key, int]]]]:
    """At each LDS access, per context, the DMAs not yet synchronized: ``sync.at_access`` (the
    joint replay) where no wave's branches are known; otherwise each group of ``wave_groups``
    replayed on the edges it takes, and its DMAs (those its replay reaches) taken from its own
    replay where that replay reaches the access in that context, from the joint one where it
    does not (another wave is there meanwhile: the joint replay bounds what it sees). A barrier
    that some group's replay does not reach would not line the waves up: the joint replay then."""
    groups = wave_groups(fx, it.branches)
    if not groups:
        return sync.at_access
    barriers = {fn.block_of(i.index) for i in fn.insts if _is_barrier(i.mnemonic)}
    barriers &= {b for b, _ in sync.contexts}
    runs: list[tuple[dict[int, dict[Ctx, dict[Key, int]]], set[int]]] = []
    for edges, _waves in groups:
        res = sync if not edges else replay_sync(fn, generation, tracked, it.start, it.edge, skip=edges)
        reached = {b for b, _ in res.contexts}
        if barriers - reached:
            return sync.at_access
        issued = {i.index for i in fn.insts if i.kind == DMA and fn.block_of(i.index) in reached}
        runs.append(({a: dict(es) for a, es in res.at_access.items()}, issued))
    out: dict[int, list[tuple[Ctx, dict[Key, int]]]] = {}
    for a, entries in sync.at_access.items():
        merged: list[tuple[Ctx, dict[Key, int]]] = []
        for ca, joint in entries:
            got: dict[Key, int] = {}
            for at_access, issued in runs:
                own = at_access.get(a, {}).get(ca)
                src = own if own is not None else {k: v for k, v in joint.items() if k[0] in issued}
                for k, v in src.items():
                    old = got.get(k)
                    got[k] = v if old is None else min(old, v)
            merged.append((ca, got))
        out[a] = merged
    return out


__all__ = ["Edge", "pending_by_wave", "wave_groups"]
