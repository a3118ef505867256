"""Covering regions (``llnoalias.transform.cover``): an access that bridges two groups of
others spans their regions instead of merging them.

The property tests draw random sets of byte intervals, annotate them (as stores to one
LDS root at constant offsets, beside accesses of a second root and accesses with no byte
range), read the emitted ``!alias.scope`` / ``!noalias`` lists back, and evaluate them
with a re-implementation of LLVM's ScopedNoAliasAA (``mayAliasInScopes``: for each domain
of the noalias list, NoAlias when every scope of the other access in that domain is in
it). Every pair of accesses that can share a byte must come out MayAlias; every pair the
chain rule claimed must still be claimed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llnoalias.analysis.provenance.lattice import Root
from llnoalias.options import AnnotateOptions
from llnoalias.transform.cover import (
    MAX_SCOPES,
    Cover,
    chain_claims,
    coarsen,
    components,
    cover,
    cover_distinct,
)
from llnoalias.transform.pipeline import annotate_text
from llnoalias.transform.scopes import Region, noalias_keys
from tests.support.files import FIXTURES
from tests.support.run import run_cli

Interval = tuple[int, int]

# ------------------------------------------------------------ ScopedNoAliasAA, in Python

Scopes = dict[str, str]  # scope id -> domain id


def may_alias_in_scopes(scopes: frozenset[str] | None, noalias: frozenset[str] | None, domain_of: Scopes) -> bool:
    """``ScopedNoAliasAAResult::mayAliasInScopes`` (llvm/lib/Analysis/ScopedNoAliasAA.cpp)."""
    if not scopes or not noalias:  # a missing list (we never write an empty one)
        return True
    for domain in {domain_of[n] for n in noalias}:
        in_domain = {s for s in scopes if domain_of[s] == domain}
        if not in_domain:
            continue
        if in_domain <= {n for n in noalias if domain_of[n] == domain}:
            return False
    return True


def llvm_noalias(a: tuple[frozenset[str], frozenset[str]], b: tuple[frozenset[str], frozenset[str]],
                 domain_of: Scopes) -> bool:
    """``ScopedNoAliasAAResult::alias`` is NoAlias."""
    return (not may_alias_in_scopes(a[0], b[1], domain_of)) or (not may_alias_in_scopes(b[0], a[1], domain_of))


def read_back(out: str) -> tuple[dict[str, tuple[frozenset[str], frozenset[str]]], Scopes]:
    """Per access line (keyed by its name ``%pN``): (alias.scope, noalias); and every scope's domain."""
    lists: dict[str, frozenset[str]] = {}
    domain_of: Scopes = {}
    for m in re.finditer(r"^(![0-9]+) = !\{([^}]*)\}$", out, re.M):
        lists[m.group(1)] = frozenset(re.findall(r"![0-9]+", m.group(2)))
    for m in re.finditer(r'^(![0-9]+) = distinct !\{(![0-9]+), (![0-9]+), !"[^"]*"\}$', out, re.M):
        domain_of[m.group(1)] = m.group(3)
    got: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for line in out.splitlines():
        m = re.search(r"ptr addrspace\(3\) (%[a-z]+[0-9]+)", line)
        if m is None or line.lstrip().startswith(";"):
            continue
        a = re.search(r"!alias\.scope (![0-9]+)", line)
        n = re.search(r"!noalias (![0-9]+)", line)
        got[m.group(1)] = (lists[a.group(1)] if a else frozenset(), lists[n.group(1)] if n else frozenset())
    return got, domain_of


# ------------------------------------------------------------ kernels of intervals

def kernel(smem: list[Interval], other: list[Interval], unranged: int) -> str:
    """One store of ``<hi - lo x i8>`` per interval of ``@smem`` (``%pN``) and of ``@other``
    (``%qN``); ``unranged`` stores to ``@smem`` at an offset read from an argument (``%uN``:
    no byte range). Stores, not memsets: LLVM's aa-eval evaluates the metadata of loads and
    stores only. ``@other`` is a sized variable, a buffer of its own (two external zero-sized
    ones would start at one address and be one buffer, design section 1)."""
    body = []
    for name, root, ivs in (("p", "smem", smem), ("q", "other", other)):
        for i, (lo, hi) in enumerate(ivs):
            body.append(f"  %{name}{i} = getelementptr i8, ptr addrspace(3) @{root}, i32 {lo}")
            body.append(f"  store <{hi - lo} x i8> zeroinitializer, ptr addrspace(3) %{name}{i}, align 1")
    for i in range(unranged):
        body.append(f"  %u{i} = getelementptr i8, ptr addrspace(3) @smem, i32 %n")
        body.append(f"  store i8 {i}, ptr addrspace(3) %u{i}, align 1")
    return ('target triple = "amdgcn-amd-amdhsa"\n'
            "@smem = external addrspace(3) global [0 x i8], align 16\n"
            "@other = internal addrspace(3) global [128 x i8] undef, align 16\n"
            "define amdgpu_kernel void @k(i32 %n) {\nentry:\n" + "\n".join(body) + "\n  ret void\n}\n")


def share_a_byte(a: Interval, b: Interval) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _chain_claimed(ivs: list[Interval]) -> set[tuple[int, int]]:
    """The pairs (of indices) the chain rule claims apart."""
    comps = components(ivs, range(len(ivs)))
    if len(comps) < 2:
        return set()
    comp_of = {i: c for c, (_, _, members) in enumerate(comps) for i in members}
    return {(i, j) for i in range(len(ivs)) for j in range(i + 1, len(ivs)) if comp_of[i] != comp_of[j]}


intervals = st.lists(st.tuples(st.integers(0, 96), st.integers(1, 40)).map(lambda t: (t[0], t[0] + t[1])),
                     min_size=1, max_size=9)


def check(smem: list[Interval], other: list[Interval], unranged: int) -> tuple[int, int]:
    """Annotate, evaluate every pair with ScopedNoAliasAA; returns (claimed pairs of
    @smem's ranged accesses, pairs the chain rule claims)."""
    out = annotate_text(kernel(smem, other, unranged), options=AnnotateOptions(lds="all")).text
    got, domain_of = read_back(out)
    accs: list[tuple[str, str, Interval | None]] = (
        [(f"%p{i}", "smem", iv) for i, iv in enumerate(smem)]
        + [(f"%q{i}", "other", iv) for i, iv in enumerate(other)]
        + [(f"%u{i}", "smem", None) for i in range(unranged)])
    claimed: set[tuple[int, int]] = set()
    for x in range(len(accs)):
        for y in range(x + 1, len(accs)):
            (nx, rx, ix), (ny, ry, iy) = accs[x], accs[y]
            apart = llvm_noalias(got[nx], got[ny], domain_of)
            may_share = rx == ry and (ix is None or iy is None or share_a_byte(ix, iy))
            assert not (apart and may_share), f"{nx} {ix} and {ny} {iy} share a byte but are claimed noalias\n{out}"
            if apart and x < len(smem) and y < len(smem):
                claimed.add((x, y))
    chain = _chain_claimed(smem)
    assert chain <= claimed, f"the chain rule claimed {sorted(chain - claimed)} and covering regions do not"
    return len(claimed), len(chain)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intervals, st.lists(st.tuples(st.integers(0, 64), st.integers(1, 16)).map(lambda t: (t[0], t[0] + t[1])),
                           max_size=3), st.integers(0, 2))
def test_accesses_that_share_a_byte_are_never_claimed_noalias(smem: list[Interval], other: list[Interval],
                                                              unranged: int) -> None:
    check(smem, other, unranged)


def model_claims(ivs: list[Interval], limit: int | None = None,
                 cov: Callable[[list[Interval]], Cover] = cover) -> set[tuple[int, int]]:
    """The plan alone (``cov`` + the writer's noalias rule), evaluated with ScopedNoAliasAA;
    with ``limit``, after ``coarsen`` to that many scopes."""
    root = Root("d", "smem", "lds")
    cv = cov(ivs) if limit is None else coarsen(cov(ivs), limit)
    if limit is not None:
        assert len(cv.scopes) <= limit
    if cv.regions < 2:
        return set()
    keys = [Region(root, lo, hi, span) for lo, hi, span in cv.scopes]
    own = [[keys[i] for i in o] for o in cv.own]
    domain_keys = list(keys)
    domain_of = {k.name: "d" for k in keys}

    lists = [(frozenset(k.name for k in o), frozenset(k.name for k in noalias_keys(o, domain_keys)))
             for o in own]
    return {(i, j) for i in range(len(ivs)) for j in range(i + 1, len(ivs))
            if llvm_noalias(lists[i], lists[j], domain_of)}


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(1, 60)).map(lambda t: (t[0], t[0] + t[1])),
                min_size=1, max_size=24))
def test_the_plan_never_claims_two_intervals_that_share_a_byte(ivs: list[Interval]) -> None:
    claimed = model_claims(ivs)
    for i, j in claimed:
        assert not share_a_byte(ivs[i], ivs[j]), (ivs[i], ivs[j])
    assert _chain_claimed(ivs) <= claimed
    assert chain_claims(ivs) == len(_chain_claimed(ivs))


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(1, 30)).map(lambda t: (t[0], t[0] + t[1])),
                min_size=1, max_size=24), st.integers(2, 6))
def test_coarsened_scopes_only_ever_remove_claims(ivs: list[Interval], limit: int) -> None:
    full = model_claims(ivs)
    coarse = model_claims(ivs, limit)
    assert coarse <= full
    for i, j in coarse:
        assert not share_a_byte(ivs[i], ivs[j]), (ivs[i], ivs[j])


def test_a_root_with_thousands_of_disjoint_accesses_gets_at_most_max_scopes() -> None:
    ivs = [(8 * i, 8 * i + 4) for i in range(2000)]
    cv = coarsen(cover(ivs))
    assert len(cv.scopes) == MAX_SCOPES and cv.regions == MAX_SCOPES
    # neighbours merged: the first and the last access still sit in different scopes
    assert cv.own[0] != cv.own[-1] and len({o for o in cv.own}) == MAX_SCOPES


# ------------------------------------------------------------ the cases it is for

def test_tile_a_tile_b_and_an_epilogue_spanning_both() -> None:
    a, b, epi = (0, 8192), (8192, 16384), (0, 16384)
    cv = cover([a, b, epi])
    assert cv.scopes == [(0, 8192, False), (8192, 16384, False), (0, 16384, True)]
    assert cv.own == [(0,), (1,), (0, 1, 2)]
    claimed, chain = check([a, b, epi, (0, 1024), (9216, 10240)], [], 1)
    assert chain == 0 and claimed > chain  # strictly more than the chain rule


def test_a_tile_reaching_into_b_stays_one_region() -> None:
    cv = cover([(0, 8200), (8192, 16384), (0, 16384)])
    assert cv.scopes == [(0, 16384, False)] and not cv.split
    assert check([(0, 8200), (8192, 16384), (0, 16384)], [], 0) == (0, 0)


def test_spanning_is_only_used_when_it_adds_regions() -> None:
    # [0,3) [1,4) [2,5): the cheapest cuts (1 and 4) leave one region: the chain rule stands
    assert cover([(0, 3), (1, 4), (2, 5)]).scopes == [(0, 5, False)]
    # a chain with nothing to split, and two chains: exactly the chain rule
    assert cover([(0, 4), (2, 6), (8, 12)]).scopes == [(0, 6, False), (8, 12, False)]


def test_two_spanning_accesses_that_meet_no_common_region_share_their_group() -> None:
    # regions [0,4) and [12,20); [2,10) and [8,14) overlap in [8,10), where no region is
    ivs = [(0, 4)] * 3 + [(12, 20)] * 3 + [(2, 10), (8, 14)]
    cv = cover(ivs)
    assert cv.scopes == [(0, 4, False), (12, 20, False), (2, 14, True)]
    assert cv.own[6:] == [(0, 2), (1, 2)]
    claimed = model_claims(ivs)
    assert (6, 7) not in claimed
    assert (0, 3) in claimed and (0, 7) in claimed and (3, 6) in claimed


def test_spanning_groups_of_different_chains_stay_apart() -> None:
    # two chains, each with a spanning access: the spanning accesses are claimed apart,
    # as the chain rule claimed them
    ivs = [(0, 8), (8, 16), (0, 16), (100, 108), (108, 116), (100, 116)]
    assert (2, 5) in model_claims(ivs)


def test_triton_gfx942_layout() -> None:
    # the ranges of a Triton 3.9 gfx942 matmul (mmB.ll): 16 stores of 1 KiB, the A and B
    # tiles' reads, and the epilogue's accesses over both
    small = [(k * 1024, (k + 1) * 1024) for k in range(16)]
    ivs = small + [(0, 8192)] * 8 + [(8192, 16384)] * 8 + [(0, 16384)] * 12
    cv = cover(ivs)
    assert [s for s in cv.scopes] == [(0, 8192, False), (8192, 16384, False), (0, 16384, True)]
    claimed = model_claims(ivs)
    a_reads = range(16, 24)
    b_reads = range(24, 32)
    assert all((i, j) in claimed for i in a_reads for j in b_reads)
    assert not any((i, j) in claimed for i in range(len(ivs)) for j in range(32, 44) if i < j)


# ------------------------------------------------------------ LLVM's own verdicts

OPT = shutil.which("opt-19")
_VERDICT = re.compile(r"^\s*(NoAlias|MayAlias|MustAlias|PartialAlias):\s+(.*?)\s+<->\s+(.*)$")
_PTR = re.compile(r"ptr addrspace\(3\) (%[a-z0-9]+)")


def aa_eval(text: str) -> dict[frozenset[str], str]:
    """LLVM's verdict (ScopedNoAliasAA alone) for every pair of LDS accesses, by their
    pointer names."""
    assert OPT is not None
    proc = subprocess.run([OPT, "-aa-pipeline=scoped-noalias-aa", "-passes=aa-eval", "-evaluate-aa-metadata",
                           "-print-all-alias-modref-info", "-disable-output"],
                          input=text, capture_output=True, text=True, check=True)
    out: dict[frozenset[str], str] = {}
    for line in proc.stderr.splitlines():
        m = _VERDICT.match(line)
        if m is None:
            continue
        a, b = _PTR.search(m.group(2)), _PTR.search(m.group(3))
        if a and b:  # (the pointer-pair lines of aa-eval name no address space this way)
            out[frozenset((a.group(1), b.group(1)))] = m.group(1)
    return out


needs_opt = pytest.mark.skipif(OPT is None, reason="opt-19 is not installed: LLVM's own aa-eval cannot be asked")


@needs_opt
def test_llvm_aa_eval_on_the_tiles_fixture() -> None:
    res = run_cli([os.path.join(FIXTURES, "regions", "tiles_epilogue_spanning.ll")])
    assert res.exit_code == 0, res.stderr
    verdicts = aa_eval(res.stdout.decode())
    assert verdicts[frozenset(("%pa", "%pb"))] == "NoAlias"  # tile A and tile B
    assert verdicts[frozenset(("%pa", "%pe"))] == "MayAlias"  # the epilogue spans both
    assert verdicts[frozenset(("%pb", "%pe"))] == "MayAlias"


@pytest.mark.slow
@needs_opt
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intervals, st.integers(0, 1))
def test_llvm_agrees_with_the_python_scoped_noalias(smem: list[Interval], unranged: int) -> None:
    # distinct pointer names only: several stores through one pointer are one pair to aa-eval
    text = annotate_text(kernel(smem, [(0, 4)], unranged), options=AnnotateOptions(lds="all")).text
    got, domain_of = read_back(text)
    verdicts = aa_eval(text)
    names = sorted(got)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            ours = "NoAlias" if llvm_noalias(got[x], got[y], domain_of) else "MayAlias"
            assert verdicts[frozenset((x, y))] == ours, (x, y, text)


def test_reports_name_the_spanning_access() -> None:
    res = run_cli(["explain", os.path.join(FIXTURES, "regions", "tiles_epilogue_spanning.ll")])
    assert res.exit_code == 0, res.stderr
    text = res.stdout.decode()
    assert ("global_smem[0,16384) spanning (bytes [0, 16384) spans regions [0,8192), [8192,16384) of global_smem)"
            in text)
    from llnoalias import annotate

    rep = annotate(open(os.path.join(FIXTURES, "regions", "tiles_epilogue_spanning.ll")).read()).report
    kinds = {r.name: r.kind for r in rep.roots}
    assert kinds["global_smem[0,16384) spanning"] == "spanning"
    assert kinds["global_smem[0,8192)"] == "region"
    notes = [a.range_note for a in rep.accesses]
    assert notes[0] == "bytes [0, 8192) in region global_smem[0,8192)"


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)).map(lambda t: (t[0], t[0] + t[1])),
                min_size=1, max_size=10))
def test_a_chain_is_split_whenever_some_cut_could_split_it(ivs: list[Interval]) -> None:
    cv = cover(ivs)
    for lo, hi, members in components(ivs, range(len(ivs))):
        splittable = any(
            len(components(ivs, [i for i in members if not (ivs[i][0] < p < ivs[i][1])])) >= 2
            for p in {q for i in members for q in ivs[i]} if lo < p < hi)
        regions = {s for i in members for s in cv.own[i] if not cv.scopes[s][2]}
        assert (len(regions) >= 2) == splittable, (ivs, members, cv)


def _components_reference(ivs: list[tuple[int, int]], idx: list[int]) -> list[tuple[int, int, list[int]]]:
    """The components as first written: sort by (lo, hi, index), merge while overlapping."""
    out: list[tuple[int, int, list[int]]] = []
    for i in sorted(idx, key=lambda i: (ivs[i][0], ivs[i][1], i)):
        lo, hi = ivs[i]
        if out and lo < out[-1][1]:
            last = out[-1]
            last[2].append(i)
            out[-1] = (last[0], max(last[1], hi), last[2])
        else:
            out.append((lo, hi, [i]))
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(ivs=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)).map(lambda t: (t[0], t[0] + t[1])),
                    max_size=25),
       data=st.data())
def test_components_match_the_reference(ivs: list[tuple[int, int]], data: st.DataObject) -> None:
    idx = data.draw(st.permutations(range(len(ivs))))
    idx = idx[:data.draw(st.integers(0, len(idx)))]
    assert components(ivs, idx) == _components_reference(ivs, idx)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(distinct=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 24)).map(lambda t: (t[0], t[0] + t[1])),
                         min_size=1, max_size=8),
       data=st.data())
def test_each_distinct_interval_covered_once_gives_the_cover(distinct: list[tuple[int, int]],
                                                             data: st.DataObject) -> None:
    """``cover_distinct`` (equal intervals counted by their weight) gives exactly ``cover``:
    the same scopes and, for every interval, the same own scopes, with repeats anywhere."""
    ivs = data.draw(st.lists(st.sampled_from(distinct), max_size=30))
    want = cover(ivs)
    got = cover_distinct(ivs)
    assert got.scopes == want.scopes and got.own == want.own
    # the weights decide where a chain is cut: each repeat of an interval crossing a cut counts
    assert cover(ivs[:1] * 3 + ivs[1:]).own == cover_distinct(ivs[:1] * 3 + ivs[1:]).own


def test_weights_decide_the_cheapest_cut() -> None:
    """Once each, the cheapest cut of this chain crosses only [6,11); with [6,11) and
    [10,15) there four times each (and the others twice), a cut crossing [4,7) and [5,9)
    is cheaper: the weights move the regions, and cover_distinct gives what the repeated
    intervals give."""
    distinct = [(4, 7), (2, 6), (6, 11), (10, 15), (5, 9)]
    weights = [2, 2, 4, 4, 2]
    once = cover(distinct)
    assert once.scopes == [(2, 9, False), (10, 15, False), (6, 11, True)]
    weighted = cover(distinct, weights)
    assert weighted.scopes == [(2, 6, False), (10, 15, False), (4, 11, True)]
    repeated = [iv for iv, w in zip(distinct, weights, strict=True) for _ in range(w)]
    assert cover(repeated).scopes == weighted.scopes
    got = cover_distinct(repeated)
    assert got.scopes == weighted.scopes and got.own == cover(repeated).own


repeated = st.lists(st.tuples(st.integers(0, 120), st.integers(1, 40)).map(lambda t: (t[0], t[0] + t[1])),
                    min_size=1, max_size=6).flatmap(lambda pool: st.lists(st.sampled_from(pool), min_size=1,
                                                                         max_size=20))


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(repeated)
def test_the_weighted_cover_never_claims_repeats_or_intervals_that_share_a_byte(ivs: list[Interval]) -> None:
    """The no-claim side of ``cover_distinct``: two copies of one interval, and any two
    intervals that share a byte, are never claimed apart, before or after coarsening."""
    for limit in (None, 3):
        claimed = model_claims(ivs, limit, cover_distinct)
        for i, j in claimed:
            assert ivs[i] != ivs[j] and not share_a_byte(ivs[i], ivs[j]), (ivs[i], ivs[j])
    assert model_claims(ivs, None, cover_distinct) == model_claims(ivs)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intervals, st.integers(1, 3), st.integers(0, 2))
def test_repeated_accesses_through_the_pipeline_are_never_claimed_noalias(smem: list[Interval], copies: int,
                                                                         unranged: int) -> None:
    """The whole run (``merge_regions`` takes ``cover_distinct``) on a kernel whose
    accesses repeat: nothing that may share a byte is claimed apart."""
    check(smem * copies, [], unranged)
