"""Deciding, per access and per domain, which scopes it gets (SPEC sections 3 and 4).

An access is tagged in a domain when every pointer operand that can reach the domain's
memory traces to a root of that domain. Its ``!alias.scope`` holds those roots' scopes;
its ``!noalias`` holds every scope of the domain that cannot overlap any of them. A
domain with fewer than two scopes makes no claim.

Scopes are keyed by ``ScopeKey``: a root, or (with ``--regions``) one byte-range region of
a root. A region access may alias only its own region and the root's own scope (held
by the accesses of that root whose range is unknown); a root-scope access may alias
every region of its root. An access that spans regions holds several region scopes and
its spanning group's scope (see ``cover``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .. import reasons
from ..analysis.memory.accesses import (
    PLAIN_OPCODES,
    Access,
    find_accesses,
    module_family,
    pointer_reaches_lds,
    reaches_global,
    reaches_lds,
)
from ..analysis.memory.intrinsics import LDS_DMA_TEXT
from ..analysis.provenance.lattice import BOTTOM, NONE, UNKNOWN, Root
from ..analysis.provenance.rootset import LDS_DOMAIN, RootSet
from ..analysis.provenance.solver import FunctionAnalysis, ModuleAnalysis
from ..ir.model import Function, Instruction, LocalRef, Module, Value
from ..plain import ValueRecord

# Plain classes, not dataclasses: the ``dataclasses`` module and the code it generates
# cost every command-line run about 10 ms of start-up.


class Region(ValueRecord):
    """One byte range ``[lo, hi)`` of a root: a scope of its own under the root's domain.
    A *spanning* one is the scope shared by a group of accesses that cross the root's
    regions (``cover``): it overlaps only itself, like a region. Immutable; equal (and
    hashed) by value."""

    __slots__ = ("root", "lo", "hi", "spanning")
    _FIELDS = __slots__

    root: Root
    lo: int
    hi: int
    spanning: bool

    def __init__(self, root: Root, lo: int, hi: int, spanning: bool = False) -> None:
        set_ = object.__setattr__
        set_(self, "root", root)
        set_(self, "lo", lo)
        set_(self, "hi", hi)
        set_(self, "spanning", spanning)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: Region is immutable")


    @property
    def domain(self) -> str:
        return self.root.domain

    @property
    def name(self) -> str:
        span = " spanning" if self.spanning else ""
        return f"{self.root.name}[{self.lo},{self.hi}){span}"


ScopeKey = Root | Region


def root_of(key: ScopeKey) -> Root:
    return key.root if isinstance(key, Region) else key


def may_overlap(a: ScopeKey, b: ScopeKey) -> bool:
    """Can memory in scope ``a`` overlap memory in scope ``b``?"""
    if root_of(a) is not root_of(b):
        return False
    if isinstance(a, Region) and isinstance(b, Region):
        return a == b
    return True


class Decision:
    """One access in one domain."""

    __slots__ = ("access", "inst", "fa", "domain", "roots", "keys", "reason", "blocker", "range_note", "byte_range",
                 "dma")

    def __init__(self, access: Access, fa: FunctionAnalysis | None, domain: str, roots: Sequence[Root] = (),
                 keys: Sequence[ScopeKey] = (), reason: str = "", blocker: str = "", range_note: str = "",
                 byte_range: tuple[int, int] | None = None, dma: tuple | None = None) -> None:
        self.access = access
        #: the access's instruction (``access.inst``; a slot: the writer reads it per access)
        self.inst: Instruction = access.inst
        #: the function's analysis while it is being planned (released afterwards)
        self.fa: FunctionAnalysis | None = fa
        self.domain = domain
        self.roots: Sequence[Root] = roots
        self.keys: Sequence[ScopeKey] = keys
        self.reason = reason
        #: where the reason applies: "line N: `code`" of the instruction (or global, or
        #: argument) that blocked the claim; accesses are grouped by it (``explain --summary``)
        self.blocker = blocker
        #: with --regions: the access's byte range and region, or why it has no range
        self.range_note = range_note
        #: with --regions: the bytes [lo, hi) of its root the access can touch, when known
        self.byte_range = byte_range
        #: in a function with LDS-DMA: the address summary ``dma_safety`` reads (plain data)
        self.dma: tuple | None = dma

    def __repr__(self) -> str:
        return f"Decision({self.access!r}, domain={self.domain!r}, keys={list(self.keys)!r}, reason={self.reason!r})"

    @property
    def tagged(self) -> bool:
        return bool(self.keys)


class Plan:
    def __init__(self) -> None:
        self.decisions: list[Decision] = []
        #: domain -> every scope key used by a tagged access, in first-use order
        self.domain_keys: dict[str, list[ScopeKey]] = {}

    def tagged(self) -> Iterable[Decision]:
        return (d for d in self.decisions if d.keys)


class Rewrites:
    """The one way a module stage rewrites a claim the provenance stage made (the regions
    stage's ``merge_regions``, the LDS-DMA rules of ``dma_safety``, ``finish``): each
    write is made on the plan's decision, and, with ``record``, remembered, so that the
    stage's result is what it wrote (:meth:`written`), not a comparison of the plan before
    and after. Key lists are rebound, never changed in place."""

    __slots__ = ("_written", "record")

    def __init__(self, record: bool = True) -> None:
        self.record = record
        #: the decisions rewritten, by id (few: only around LDS-DMA)
        self._written: dict[int, Decision] = {}

    def withdraw(self, d: Decision, reason: str, blocker: str) -> None:
        """``d`` claims nothing, for ``reason`` at ``blocker``."""
        d.keys = []
        d.reason = reason
        d.blocker = blocker
        if self.record:
            self._written[id(d)] = d

    def scope(self, d: Decision, keys: Sequence[ScopeKey]) -> None:
        """``d``, which claimed nothing, claims ``keys``."""
        d.keys = keys
        d.reason = d.blocker = ""
        if self.record:
            self._written[id(d)] = d

    def rebind(self, d: Decision, keys: Sequence[ScopeKey]) -> None:
        """``d`` claims ``keys`` instead of the keys it claims (its root's regions)."""
        d.keys = keys
        if self.record:
            self._written[id(d)] = d

    def written(self, decisions: Sequence[Decision]) -> list[tuple[Decision, Sequence[ScopeKey], str, str]]:
        """The rewritten decisions of ``decisions`` (the plan's, in its order), each with
        its keys, reason and blocker as they stand now."""
        got = self._written
        if not got:
            return []
        return [(d, d.keys, d.reason, d.blocker) for d in decisions if id(d) in got]


def _operand_reason(fa: FunctionAnalysis, v: Value, value: object, domain: str, brief: bool) -> tuple[str, str]:
    """Why an operand keeps its access untagged, and where (see ``Decision.blocker``)."""
    if value is NONE:
        return reasons.RAW_INTEGER_POINTER.text, _where(fa, v)
    if value is BOTTOM:
        return reasons.UNDEF_POINTER.text, _where(fa, v)
    if isinstance(value, Root):
        return reasons.OTHER_DOMAIN.format(root=value.name), _where(fa, v)
    if brief:  # nobody will read it: skip the walk back through the slice
        return reasons.PROVENANCE_NOT_EXPLAINED.text, ""
    rule, where = fa.blame(v)
    return reasons.UNKNOWN_PROVENANCE.format(rule=rule), where


def _where(fa: FunctionAnalysis, v: Value) -> str:
    """The line and code that defines ``v``, when it is an instruction."""
    if isinstance(v, LocalRef):
        inst = fa.fn.by_name.get(v.name)
        if inst is not None:
            return fa.where_of(inst)
    return ""


def _at_access(access: Access) -> str:
    inst = access.inst
    fn = inst.function
    text = fn.source.text[inst.start:inst.end] if fn.source is not None else ""
    code = " ".join(text.strip().split(", !")[0].split())
    if len(code) > 90:
        code = code[:87] + "..."
    return f"line {inst.line}: `{code}`"


def decide(access: Access, fa: FunctionAnalysis, domain: str, family: str, brief: bool = False) -> Decision | None:
    """Tag ``access`` in ``domain``? None when none of its operands can reach the domain."""
    is_lds = domain == LDS_DOMAIN
    reach = reaches_lds if is_lds else reaches_global
    own_kind = "lds" if is_lds else "arg"
    relevant = []
    for p in access.pointers:
        if p.type.addrspace >= 0 and not reach(family, p.type.addrspace):
            continue
        value = fa.value(p.value)
        # A pointer traced to an LDS buffer cannot reach a kernel argument's buffer, and
        # the other way round: such an operand does not concern this domain.
        if isinstance(value, Root) and value.kind != own_kind:
            continue
        relevant.append((p, value))
    opaque = [] if is_lds else access.opaque
    if not relevant and not opaque:
        return None
    d = Decision(access, fa, domain)
    if access.blocked:
        d.reason = access.blocked
        d.blocker = _at_access(access)
        return d
    roots: list[Root] = []
    for p, value in relevant:
        if isinstance(value, Root) and value.domain == domain:
            if value not in roots:
                roots.append(value)
            continue
        d.reason, d.blocker = _operand_reason(fa, p.value, value, domain, brief)
        if not d.blocker and not brief:
            d.blocker = _at_access(access)  # a constant operand: the access itself
        return d
    if opaque:
        d.reason = reasons.OPAQUE_RESOURCE.text
        d.blocker = _at_access(access)
        return d
    d.roots = roots
    d.keys = roots  # shared until regions or finish() rebind keys (never mutated in place)
    return d


def plan_function(mod: Module, ma: ModuleAnalysis, roots: RootSet, fn: Function, out: Plan,
                  brief: bool = False) -> list[Decision]:
    """Decide every access of ``fn`` in every domain that concerns it; the decisions are
    appended to ``out`` and returned. ``brief``: reasons without their explanation."""
    domains = roots.domains_of(fn)
    if not domains:
        return []
    accesses = find_accesses(mod, fn)
    if not accesses:
        return []
    family = module_family(mod)
    fa = ma.function(fn)
    names: list[str] = []
    for acc in accesses:
        for p in acc.pointers:
            pv = p.value
            if isinstance(pv, LocalRef):
                names.append(pv.name)
        if acc.opaque:  # (most accesses have none: no generator for them)
            names.extend(v.name for v in acc.opaque if isinstance(v, LocalRef))
    fa.solve(names)
    made: list[Decision] = []
    #: one list per set of roots, shared by the function's decisions (as ``finish`` and
    #: the writer read each list once; lists are rebound, never changed in place)
    shared: dict[tuple[int, ...], Sequence[Root]] = {}
    for acc in accesses:
        for domain in domains:
            d = decide(acc, fa, domain, family, brief)
            if d is not None:
                if d.keys:
                    ids = tuple([id(r) for r in d.roots])
                    got = shared.get(ids)
                    if got is None:
                        shared[ids] = d.roots
                    else:
                        d.roots = d.keys = got
                made.append(d)
    out.decisions.extend(made)
    return made


def finish(p: Plan, claims: Rewrites | None = None) -> None:
    """Collect each domain's scopes and withdraw the claims of domains with fewer than two
    (through ``claims``, when the caller keeps what was rewritten)."""
    if claims is None:
        claims = Rewrites(record=False)
    keys: dict[str, list[ScopeKey]] = {}
    # Decisions share their key lists (one per root set, one per set of regions: never
    # changed in place, only rebound), so a list already read for a domain adds nothing:
    # each is read once, not once per access (the lists stay alive in the plan meanwhile,
    # so their ids are not reused). Reading a list again adds nothing either, so the
    # memo (id of a list -> the domain it was read for) is bounded: a module of many
    # small kernels has a list per argument. A list of one root in a domain of few keys
    # so far is read without the memo (a module of many small kernels: most lists, each
    # read once): a look at those few keys is all it takes.
    read: dict[int, str] = {}
    # the domain of the decision before and its list, and the one before that (the
    # decisions of a function alternate between the LDS domain and its own at most)
    cur: str | None = None
    lst: list[ScopeKey] = []
    other: str | None = None
    other_lst: list[ScopeKey] = []
    for d in p.decisions:
        dkeys = d.keys
        if not dkeys:
            continue
        domain = d.domain
        if domain is not cur:
            if domain is other:
                other, other_lst, cur, lst = cur, lst, other, other_lst
            else:
                other, other_lst = cur, lst
                have = keys.get(domain)
                if have is None:
                    have = keys[domain] = []
                cur, lst = domain, have
        if len(dkeys) == 1:
            k = dkeys[0]
            if k.__class__ is Root and len(lst) < 16:
                if k not in lst:
                    lst.append(k)  # (a root new to its domain)
                continue
        if read.get(id(dkeys)) == domain:
            continue
        if len(read) >= 4096:
            read.clear()
        read[id(dkeys)] = domain
        for k in dkeys:
            if k not in lst:
                lst.append(k)
    lonely = {domain for domain, lst in keys.items() if len(lst) < 2}
    if lonely:
        # the reason and blocker of each lonely domain, made once (not once per access)
        why = {domain: (reasons.SINGLE_SCOPE.format(root=keys[domain][0].name if keys[domain] else "nothing"),
                        f"domain {domain}") for domain in lonely}
        withdraw = claims.withdraw
        # one pass over the decisions (a module has a domain per kernel: one pass per
        # domain would be quadratic)
        for d in p.decisions:
            if d.keys:
                got = why.get(d.domain)
                if got is not None:
                    withdraw(d, *got)
        for domain in lonely:
            del keys[domain]
    p.domain_keys = keys


#: the scope, in the LDS domain, of the accesses through a kernel's pointer arguments:
#: memory that is not LDS (a launch cannot pass an LDS address; design section 3)
OUTSIDE_LDS = Root(LDS_DOMAIN, "not LDS (kernel arguments)", "outside")


def outside_lds(mod: Module, p: Plan) -> int:
    """Give each access through a kernel's pointer argument whose pointer may reach LDS by
    its type (a generic pointer) the scope :data:`OUTSIDE_LDS` in the LDS domain, so that
    the LDS accesses' ``!noalias`` names it and its ``!noalias`` names every LDS scope:
    without it a store through ``out`` stays unsure against a tile (a lone tile would make
    no scope at all), where ``__restrict__`` tells them apart (design section 3). Only where
    every access tagged in the LDS domain is a load, store or atomic of LDS alone (no call:
    an LDS-DMA or a memcpy also touches global memory, which ``!noalias`` of its scope would
    disown) and the module has no LDS-DMA (whose scopes the rules of section 4b may give
    later). Run before ``finish``; returns how many accesses got it."""
    decisions = p.decisions
    lds_tagged = False
    for d in decisions:
        if d.keys and d.domain == LDS_DOMAIN:
            if d.inst.opcode not in PLAIN_OPCODES:
                return 0
            lds_tagged = True
    if not lds_tagged or LDS_DMA_TEXT.search(mod.text) is not None:
        return 0
    out: list[Decision] = []
    outside: Sequence[Root] = [OUTSIDE_LDS]
    added = 0
    n = len(decisions)
    for i, d in enumerate(decisions):
        out.append(d)
        if not d.keys or d.domain == LDS_DOMAIN or d.inst.opcode not in PLAIN_OPCODES:
            continue
        inst = d.inst
        if (i > 0 and decisions[i - 1].inst is inst) or (i + 1 < n and decisions[i + 1].inst is inst):
            continue  # an access with a decision in another domain too: left as it is
        if not pointer_reaches_lds(mod, inst):
            continue  # (a global pointer: the address space tells it apart already)
        out.append(Decision(d.access, None, LDS_DOMAIN, outside, outside))
        added += 1
    if added:
        decisions[:] = out
    return added


def noalias_keys(own: Sequence[ScopeKey], domain_keys: Sequence[ScopeKey]) -> list[ScopeKey]:
    """An access's ``!noalias`` list: every scope of its domain (``domain_keys``) that
    overlaps none of its own scopes ``own`` (the one builder: the writer's shortcut for a
    domain of distinct buffers, ``pipeline._lists``, gives the same list)."""
    return [k for k in domain_keys if not any(may_overlap(k, o) for o in own)]


__all__ = ["OUTSIDE_LDS", "Decision", "Plan", "Region", "Rewrites", "ScopeKey", "UNKNOWN", "decide", "finish",
           "may_overlap", "noalias_keys", "outside_lds", "plan_function", "root_of"]
