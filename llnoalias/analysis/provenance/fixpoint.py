"""The provenance solver's worklist over one backward slice, in Python: the reference the
compiled one (``_fixpoint.c``) is held to (tests/analysis/provenance/test_twin_fixpoint.py). ``provenance.FunctionAnalysis.solve``
walks the slice and calls one of these with its transfer function."""

from __future__ import annotations

from collections.abc import Callable

from ...ir.model import Instruction, Ops
from .lattice import BOTTOM, UNKNOWN, Agg, Lat, join


def one_pass(transfer: Callable[[Instruction, Ops, dict[str, Lat]], tuple[Lat, str]],
              slice_: dict[str, Instruction], order: list[str]) -> dict[str, Lat]:
    """A slice without loops: every value comes after what it reads, so the worklist
    would meet each value once, in this order, and find it bottom; one pass does the same."""
    env: dict[str, Lat] = {}
    for n in order:
        inst = slice_[n]
        iops = inst.ops
        assert iops is not None
        env[n] = transfer(inst, iops, env)[0]
    return env


def fixpoint(transfer: Callable[[Instruction, Ops, dict[str, Lat]], tuple[Lat, str]], slice_: dict[str, Instruction],
              deps_of: dict[str, list[str]], order: list[str], back: list[tuple[int, str, str]]) -> dict[str, Lat]:
    """The optimistic worklist over a slice with loops: a stack of values to visit, at
    first ``order`` reversed; a value that changes puts back its users not on it.

    Done without the stack's first part: a value's first visit is its turn in ``order``,
    where it is still bottom; then the users on the stack are those later in ``order``
    and those put back since (``again``); those earlier are the ``back`` reads."""
    backs: dict[str, list[str]] = {}
    for _, u, dep in sorted(back):  # in the order values entered the slice, as users
        lst = backs.setdefault(dep, [])
        if not lst or lst[-1] != u:
            lst.append(u)
    users: dict[str, list[str]] | None = None
    pos: dict[str, int] = {}
    env: dict[str, Lat] = dict.fromkeys(slice_, BOTTOM)
    budget = 64 * len(order) + 1000
    again: list[str] = []
    queued: set[str] = set()
    for i, n in enumerate(order):
        inst = slice_[n]
        iops = inst.ops
        assert iops is not None
        new = transfer(inst, iops, env)[0]
        if new is BOTTOM:
            continue
        env[n] = new
        budget -= 1
        if budget < 0:
            break
        bu = backs.get(n)
        if bu is None:
            continue
        for u in bu:
            if u not in queued:
                queued.add(u)
                again.append(u)
        if users is None:
            # Values are put back only at the turns of values read going back, so
            # only users up to the last of these can be: the rest are left out.
            last = len(order) - 1
            while order[last] not in backs:
                last -= 1
            pos = {m: k for k, m in enumerate(order[:last + 1])}
            users = {}
            for m, deps in deps_of.items():
                if m in pos:
                    for dep in deps:
                        users.setdefault(dep, []).append(m)
        while again:
            m = again.pop()
            queued.discard(m)
            inst = slice_[m]
            iops = inst.ops
            assert iops is not None
            new, _ = transfer(inst, iops, env)
            old = env[m]
            if new is old:
                continue
            new = join(old, new)
            if new is old or (isinstance(new, Agg) and new == old):
                continue
            env[m] = new
            budget -= 1
            if budget < 0:
                break
            for u in users.get(m, ()):
                if pos[u] <= i and u not in queued:
                    queued.add(u)
                    again.append(u)
        if budget < 0:
            break
    if budget < 0:
        # Cannot happen on a finite lattice; give up soundly if it ever does.
        for m in slice_:
            env[m] = UNKNOWN
    return env


__all__ = ["fixpoint", "one_pass"]
