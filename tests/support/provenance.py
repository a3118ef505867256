"""The provenance solver as it was before its shortcuts: one optimistic worklist over the
whole slice, every value queued, every change putting back each user that is not queued.
``FunctionAnalysis.solve`` skips the worklist where the slice has no loop and keeps only the
reads that go back in the order where it has one; it must give what this gives
(``tests/analysis/provenance/test_provenance_speed.py``, ``tests/test_fast_paths.py``)."""

from __future__ import annotations

from collections.abc import Iterable

from llnoalias.analysis.provenance.blame import OWN_CAUSE, local_deps
from llnoalias.analysis.provenance.lattice import BOTTOM, UNKNOWN, Agg, Lat, join
from llnoalias.analysis.provenance.solver import FunctionAnalysis
from llnoalias.ir import operands as opparse
from llnoalias.ir.model import Instruction, LocalRef


def reference_solve(fa: FunctionAnalysis, names: Iterable[str]) -> None:
    """The solver as it was before its shortcuts: one worklist over the whole slice."""
    by_name = fa.fn.by_name
    vals = fa.vals
    todo = [n for n in names if n not in vals and n in by_name]
    if not todo:
        return
    slice_: dict[str, Instruction] = {}
    users: dict[str, list[str]] = {}
    order: list[str] = []

    def enter(n: str) -> list[str]:
        inst = by_name[n]
        slice_[n] = inst
        iops = opparse.parse(fa.mod, inst)
        deps = [dep for dep in local_deps(iops) if dep not in vals]
        if iops.kind == "load" and iops.operands:
            fwd = fa.ma.slots(fa.fn).forwarded(iops.operands[0][1])
            if fwd is not None:
                deps += [v.name for _, v in fwd[1] if isinstance(v, LocalRef) and v.name not in vals]
        for dep in deps:
            users.setdefault(dep, []).append(n)
        return deps

    for top in todo:
        if top in slice_:
            continue
        stack = [(top, iter(enter(top)))]
        while stack:
            n, rest = stack[-1]
            for dep in rest:
                if dep not in slice_ and dep in by_name:
                    stack.append((dep, iter(enter(dep))))
                    break
            else:
                stack.pop()
                order.append(n)
    env: dict[str, Lat] = dict.fromkeys(slice_, BOTTOM)
    work = order[::-1]
    queued = set(work)
    budget = 64 * len(work) + 1000
    while work:
        n = work.pop()
        queued.discard(n)
        inst = slice_[n]
        assert inst.ops is not None
        new, _ = fa.transfer(inst, inst.ops, env)
        old = env[n]
        if new is old:
            continue
        new = join(old, new)
        if new is old or (isinstance(new, Agg) and new == old):
            continue
        env[n] = new
        budget -= 1
        if budget < 0:
            for m in slice_:
                env[m] = UNKNOWN
            break
        for u in users.get(n, ()):
            if u not in queued:
                queued.add(u)
                work.append(u)
    vals.update(env)
    for n, v in env.items():
        if v is UNKNOWN:
            sops = slice_[n].ops
            assert sops is not None
            operands = list(sops.incoming) if sops.kind == "phi" else [x for _, x in sops.operands]
            if sops.kind in OWN_CAUSE or not any(fa.value(dv) is UNKNOWN for dv in operands):
                why = fa.transfer(slice_[n], sops, vals)[1]
                if why:
                    fa.cause[n] = why
                elif sops.kind not in OWN_CAUSE:
                    fa.cause[n] = f"'{sops.kind}' made the value unknown"

