"""A stage leaves the plan it was handed as it was: what it concludes is a new plan
(``scopes.Rewrites``, ``Decision.replace``), which shares the decisions it did not change.

Each stage's ``run`` is wrapped: before it runs, the claim of every decision of its input
(keys, reason, blocker; for the ranges stage the byte range and range note too) and each
domain's keys are copied out; after it ran, the input's own objects must still say the same,
and the stage's output must differ from its input exactly at the decisions it rewrote. The
fixtures are ones where the stages do rewrite: regions split a root and the LDS-DMA rules
withdraw claims (``window_no_claim``), a DMA of an unsafe input is rescued after the domains
are counted (``input_unsafe_rescued``), a DMA gets a domain of its own
(``noalias_args_untraced_scoped``)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from llnoalias.options import AnnotateOptions
from llnoalias.transform import function_pass, pipeline
from llnoalias.transform.scopes import Decision, Plan, Rewrites
from llnoalias.transform.stages import Changes
from tests.support.files import FIXTURES

#: fixture -> the stages that must rewrite some decision there (so the test cannot pass by
#: comparing a plan with itself)
CASES = {
    "dma/window_no_claim.ll": ("ranges", "regions", "dma-safety"),
    "dma/input_unsafe_rescued.ll": ("dma-scopes",),
    "dma/noalias_args_untraced_scoped.ll": ("dma-safety", "dma-scopes"),
}
OPTIONS = {"default": AnnotateOptions(), "all": AnnotateOptions(lds="all", args="noalias")}

#: a decision's claim, copied out
Claim = tuple[tuple[object, ...], str, str]


def _claim(d: Decision) -> Claim:
    return tuple(d.keys), d.reason, d.blocker


def _measured(d: Decision) -> tuple[object, ...]:
    return (*_claim(d), d.byte_range, d.range_note)


def _snapshot(p: Plan) -> tuple[list[tuple[Decision, Claim]], dict[str, tuple[object, ...]]]:
    """The plan's decisions (the objects, and each one's claim as it is now) and each
    domain's keys."""
    return [(d, _claim(d)) for d in p.decisions], {dom: tuple(keys) for dom, keys in p.domain_keys.items()}


class Seen:
    """One stage run: its input plan, the snapshot of it before, the plan it handed on and
    its result."""

    def __init__(self, name: str, given: Plan, before: object, made: Plan, result: object) -> None:
        self.name = name
        self.given = given
        self.before = before
        self.made = made
        self.result = result


def _watch(monkeypatch: pytest.MonkeyPatch, seen: list[Seen], ranges: list[tuple[list, list, list[Decision]]]) -> None:
    for stage in pipeline.PIPELINE:
        if stage.unit != "module":
            continue

        def run(run: function_pass.Run, got: dict, _real: Callable = stage.run, _name: str = stage.name) -> object:
            given = run.plan
            before = _snapshot(given)
            result = _real(run, got)
            seen.append(Seen(_name, given, before, run.plan, result))
            return result

        monkeypatch.setattr(stage, "run", run)
    ranges_stage = next(s for s in function_pass.FUNCTION_STAGES if s.name == "ranges")
    real_ranges = ranges_stage.run

    def measured(fp: function_pass.FunctionPass, fn: object, previous: object) -> object:
        given = list(previous.decisions)  # type: ignore[attr-defined]
        before = [_measured(d) for d in given]
        result = real_ranges(fp, fn, previous)  # type: ignore[arg-type]
        ranges.append((given, before, list(result.decisions)))
        return result

    monkeypatch.setattr(ranges_stage, "run", measured)


def _by_access(ds: list[Decision]) -> dict[tuple[int, str], Decision]:
    return {(id(d.access), d.domain): d for d in ds}


@pytest.mark.parametrize("opts", list(OPTIONS), ids=list(OPTIONS))
@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_a_stage_leaves_its_input_plan_as_it_was(name: str, opts: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        text = f.read()
    seen: list[Seen] = []
    ranges: list[tuple[list, list, list[Decision]]] = []
    _watch(monkeypatch, seen, ranges)
    pipeline.annotate_text(text, name, OPTIONS[opts])
    assert [s.name for s in seen][-5:] == ["regions", "dma-safety", "scopes", "dma-scopes", "write"]
    rewrote: set[str] = set()
    for s in seen:
        before_ds, before_keys = s.before  # type: ignore[misc]
        # the input plan's decisions are the same objects, and say what they said before
        assert [d for d, _ in before_ds] == list(s.given.decisions), s.name
        changed_inputs = [(d, was, _claim(d)) for d, was in before_ds if _claim(d) != was]
        assert not changed_inputs, f"{s.name} rewrote its input's decisions in place: {changed_inputs}"
        assert {dom: tuple(keys) for dom, keys in s.given.domain_keys.items()} == before_keys, s.name
        # the output differs from the input where the stage rewrote, and only there: a
        # decision the stage did not rewrite is the input's own object
        old = _by_access([d for d, _ in before_ds])
        new = [d for d in s.made.decisions if (id(d.access), d.domain) in old]
        rewritten = [d for d in new if d is not old[(id(d.access), d.domain)]]
        for d in rewritten:
            assert _claim(d) != _claim(old[(id(d.access), d.domain)]), (s.name, d)
        if isinstance(s.result, Changes):
            # what the LDS-DMA stages say they changed is what their plan holds
            handed = {id(d) for d in s.made.decisions}
            assert all(id(d) in handed for d, *_ in s.result.changed), s.name
            assert {id(d) for d in rewritten} <= {id(d) for d, *_ in s.result.changed}, s.name
        if rewritten or len(s.made.decisions) > len(s.given.decisions):
            rewrote.add(s.name)
    # the ranges stage: each function's decisions from the provenance stage stay as they
    # were; the ones it measured are new decisions with their byte range or note
    for given, before, made in ranges:
        assert [_measured(d) for d in given] == before
        assert len(made) == len(given)
        if any(m is not g for m, g in zip(made, given, strict=True)):
            rewrote.add("ranges")
        for m, g in zip(made, given, strict=True):
            if m is not g:
                assert (m.byte_range, m.range_note) != (g.byte_range, g.range_note)
                assert _claim(m) == _claim(g)
    missing = set(CASES[name]) - rewrote
    assert not missing, f"no decision rewritten by {sorted(missing)} on {name}: the fixture no longer tests them"


def test_a_decision_cannot_be_assigned() -> None:
    """``Decision`` is immutable: a rewrite is a new decision (``replace``), the old one stays."""
    from llnoalias.analysis.memory.accesses import RELEASED, Access
    from llnoalias.ir.model import Instruction

    acc = Access(Instruction("%x", "load", 0, 1, None), "load", RELEASED, RELEASED)  # type: ignore[arg-type]
    d = Decision(acc, "llnoalias.lds", reason="why", blocker="where")
    for field in ("keys", "reason", "blocker", "roots", "byte_range", "range_note", "dma", "domain", "access"):
        with pytest.raises(AttributeError):
            setattr(d, field, None)
    e = d.replace(reason="other", byte_range=(0, 4))
    assert (d.reason, d.byte_range, d.blocker) == ("why", None, "where")
    assert (e.reason, e.byte_range, e.blocker, e.access, e.inst) == ("other", (0, 4), "where", acc, acc.inst)
    with pytest.raises(TypeError):
        d.replace(access=acc)


def test_rewrites_builds_a_new_plan_and_leaves_its_input() -> None:
    """``Rewrites`` on a plan of four decisions: a withdrawal, a second write of the same
    decision, a rebind by position, an insertion and a domain's new key; the input plan's
    list, decisions and domain keys stay as they were, the new plan shares what was not
    written, and ``written`` lists each written decision once, as it stands, in plan order."""
    from llnoalias.analysis.memory.accesses import RELEASED, Access
    from llnoalias.analysis.provenance.lattice import Root
    from llnoalias.ir.model import Instruction

    dom = "llnoalias.lds"
    a, b = Root(dom, "a", "lds"), Root(dom, "b", "lds")
    accs = [Access(Instruction(f"%x{i}", "load", i, i + 1, None), "load", RELEASED, RELEASED)  # type: ignore[arg-type]
            for i in range(4)]
    ds = [Decision(acc, dom, [a], [a]) for acc in accs]
    keys: dict[str, list] = {dom: [a]}
    p = Plan(ds, keys)
    listed, before = list(ds), _snapshot(p)
    claims = Rewrites(p)
    assert claims.plan() is p and claims.written() == []  # nothing written: the input itself
    claims.withdraw(ds[2], "why", "where")
    assert claims.now(ds[2]).reason == "why" and claims.now(ds[0]) is ds[0]
    claims.scope(claims.now(ds[2]), [b])  # a second write, through the decision written first
    claims.rebind(ds[0], [b], at=0)
    added = Decision(accs[1], "llnoalias.dma.k.1")
    claims.insert(1, added)
    claims.add_key(dom, b)
    new = claims.plan()
    assert p.decisions is ds and ds == listed and _snapshot(p) == before and keys == {dom: [a]}
    assert [d.access for d in new.decisions] == [accs[0], accs[1], accs[1], accs[2], accs[3]]
    assert new.decisions[2] is added and new.decisions[1] is ds[1] and new.decisions[4] is ds[3]
    assert _claim(new.decisions[3]) == ((b,), "", "") and _claim(new.decisions[0]) == ((b,), "", "")
    assert new.domain_keys == {dom: [a, b]}
    assert [(d.access, tuple(k), r, w) for d, k, r, w in claims.written()] == [
        (accs[0], (b,), "", ""), (accs[2], (b,), "", "")]
    assert claims.added() == [added]
