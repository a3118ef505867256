"""``scopes.finish`` collects each domain's keys in first-use order whatever way it reads a
decision's list (a one-root list in a domain of few keys by identity, any other through
its memo of lists read): the same keys, the same order and the same withdrawn claims as
reading every list of every decision."""

from __future__ import annotations

import random

from llnoalias.analysis.memory.accesses import RELEASED, Access
from llnoalias.analysis.provenance.lattice import Root
from llnoalias.ir.model import Instruction
from llnoalias.transform.scopes import Decision, Plan, Region, ScopeKey, finish


def _reference(decisions: list[Decision]) -> dict[str, list[ScopeKey]]:
    """Every key of every decision, by domain, in first-use order (no memo, no shortcut)."""
    keys: dict[str, list[ScopeKey]] = {}
    for d in decisions:
        if not d.keys:
            continue
        lst = keys.setdefault(d.domain, [])
        for k in d.keys:
            if k not in lst:
                lst.append(k)
    return {domain: lst for domain, lst in keys.items() if len(lst) >= 2}


def _plan(seed: int) -> Plan:
    rnd = random.Random(seed)
    inst = Instruction("%x", "load", 0, 1, None)  # type: ignore[arg-type]  # (not read by finish)
    domains = ["llnoalias.lds"] + [f"llnoalias.args.k{i}" for i in range(rnd.randint(1, 6))]
    roots = {dom: [Root(dom, f"r{j}", "lds" if dom == "llnoalias.lds" else "arg", (), j)
                   for j in range(rnd.choice([1, 2, 3, 20]))] for dom in domains}
    regions = {dom: [Region(r, lo, lo + 4) for r in rs[:2] for lo in (0, 4, 8)] for dom, rs in roots.items()}
    # lists shared between decisions, as the planners share them
    shared: list[tuple[str, list[ScopeKey]]] = []
    p = Plan()
    for _ in range(rnd.randint(0, 120)):
        dom = rnd.choice(domains)
        pick = rnd.random()
        if shared and pick < 0.3:
            dom, keys = rnd.choice(shared)
        elif pick < 0.55:
            keys = [rnd.choice(roots[dom])]
        elif pick < 0.7:
            keys = [Region(*_fields(rnd.choice(regions[dom])))]  # equal to a region met, not the same object
        elif pick < 0.85:
            keys = rnd.sample(roots[dom] + regions[dom], k=min(3, len(roots[dom])))
        else:
            keys = []
        if keys and rnd.random() < 0.5:
            shared.append((dom, keys))
        if len(keys) == 1 and isinstance(keys[0], Root) and rnd.random() < 0.5:
            p.decisions.append(Decision(Access(inst, "load", RELEASED, RELEASED), dom, keys, keys))
        else:
            p.decisions.append(Decision(Access(inst, "load", RELEASED, RELEASED), dom, keys, keys))
    return p


def _fields(r: Region) -> tuple[Root, int, int, bool]:
    return r.root, r.lo, r.hi, r.spanning


def test_finish_collects_as_reading_every_list() -> None:
    for seed in range(300):
        p = _plan(seed)
        before = [(d, list(d.keys)) for d in p.decisions]
        want = _reference(p.decisions)
        new = finish(p)
        assert list(new.domain_keys) == list(want), seed
        for domain, keys in want.items():
            got = new.domain_keys[domain]
            assert len(got) == len(keys) and all(a == b for a, b in zip(got, keys, strict=True)), (seed, domain)
        # the claims of a domain of fewer than two keys withdrawn in the new plan, the
        # others kept; the plan finish was handed is left as it was
        for (d, keys), nd in zip(before, new.decisions, strict=True):
            assert list(d.keys) == keys, seed
            if keys and d.domain not in want:
                assert not nd.keys and nd.reason and nd.blocker == f"domain {d.domain}", seed
            else:
                assert nd is d, seed


def test_many_small_domains_alternating_with_one() -> None:
    """The decisions of many kernels, each alternating between the LDS domain and its own
    (the lists at hand for two domains), one root each."""
    inst = Instruction("%x", "load", 0, 1, None)  # type: ignore[arg-type]
    lds = [Root("llnoalias.lds", f"g{i}", "lds", (), i) for i in range(3)]
    p = Plan()
    for k in range(50):
        dom = f"llnoalias.args.k{k}"
        a, b = Root(dom, "a", "arg", (), 0), Root(dom, "b", "arg", (), 1)
        for key, d in ((lds[k % 3], "llnoalias.lds"), (a, dom), (lds[(k + 1) % 3], "llnoalias.lds"), (b, dom)):
            keys = [key]
            p.decisions.append(Decision(Access(inst, "load", RELEASED, RELEASED), d, keys, keys))
    want = _reference(p.decisions)
    p = finish(p)
    assert list(p.domain_keys) == list(want) and p.domain_keys == want
    assert p.domain_keys["llnoalias.lds"] == [lds[0], lds[1], lds[2]]
