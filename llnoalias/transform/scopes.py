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
from operator import itemgetter

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

TYPE_CHECKING = False  # ``typing`` is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

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


class _Fields:
    """The fields of a :class:`Decision` (a base with no ``__setattr__`` of its own, so that
    ``Decision.__new__`` fills one at the speed of plain slots before it becomes a Decision)."""

    __slots__ = ("access", "inst", "domain", "roots", "keys", "reason", "blocker", "range_note", "byte_range", "dma")

    access: Access
    #: the access's instruction (``access.inst``; a slot: the writer reads it per access)
    inst: Instruction
    domain: str
    roots: Sequence[Root]
    keys: Sequence[ScopeKey]
    reason: str
    #: where the reason applies: "line N: `code`" of the instruction (or global, or
    #: argument) that blocked the claim; accesses are grouped by it (``explain --summary``)
    blocker: str
    #: with --regions: the access's byte range and region, or why it has no range
    range_note: str
    #: with --regions: the bytes [lo, hi) of its root the access can touch, when known
    byte_range: tuple[int, int] | None
    #: in a function with LDS-DMA: the address summary ``dma_safety`` reads (plain data)
    dma: tuple | None


_new = object.__new__
#: ``Decision.replace``'s default: the field is kept
_KEEP: Any = object()


class Decision(_Fields):
    """One access in one domain. Immutable: a stage that concludes something new about an
    access makes a new decision (:meth:`replace`) in a new plan (``Rewrites``); the
    decisions a stage was handed stay as they were. Equal by identity; the decisions of one
    plan are told apart by their access and domain."""

    __slots__ = ()

    def __new__(cls, access: Access, domain: str, roots: Sequence[Root] = (), keys: Sequence[ScopeKey] = (),
                reason: str = "", blocker: str = "", range_note: str = "", byte_range: tuple[int, int] | None = None,
                dma: tuple | None = None) -> Decision:
        # filled as a plain ``_Fields`` (the assignments of plain slots), then made a Decision
        # (one assignment of ``__class__``: the two share one layout)
        self = _new(_Fields)
        self.access = access
        self.inst = access.inst
        self.domain = domain
        self.roots = roots
        self.keys = keys
        self.reason = reason
        self.blocker = blocker
        self.range_note = range_note
        self.byte_range = byte_range
        self.dma = dma
        self.__class__ = cls  # (the same layout)
        return self  # type: ignore[return-value]  # a Decision now

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: Decision is immutable (use replace)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: Decision is immutable")

    def replace(self, *, domain: str = _KEEP, roots: Sequence[Root] = _KEEP, keys: Sequence[ScopeKey] = _KEEP,
                reason: str = _KEEP, blocker: str = _KEEP, range_note: str = _KEEP,
                byte_range: tuple[int, int] | None = _KEEP, dma: tuple | None = _KEEP) -> Decision:
        """A copy with the fields given changed, as ``dataclasses.replace`` (the access, and
        so the instruction, stay); this decision is left as it is."""
        return Decision(self.access, self.domain if domain is _KEEP else domain,
                        self.roots if roots is _KEEP else roots, self.keys if keys is _KEEP else keys,
                        self.reason if reason is _KEEP else reason, self.blocker if blocker is _KEEP else blocker,
                        self.range_note if range_note is _KEEP else range_note,
                        self.byte_range if byte_range is _KEEP else byte_range, self.dma if dma is _KEEP else dma)

    # ``replace`` for the three fields the stages change, without its keywords (the
    # per-function stages copy a decision per LDS access they conclude about)
    def claiming(self, keys: Sequence[ScopeKey], reason: str, blocker: str) -> Decision:
        """A copy whose claim is ``keys``, ``reason`` and ``blocker`` (``Rewrites``)."""
        return Decision(self.access, self.domain, self.roots, keys, reason, blocker, self.range_note,
                        self.byte_range, self.dma)

    def measured(self, range_note: str, byte_range: tuple[int, int] | None) -> Decision:
        """A copy with its range note and byte range (the ranges stage)."""
        return Decision(self.access, self.domain, self.roots, self.keys, self.reason, self.blocker, range_note,
                        byte_range, self.dma)

    def summarised(self, dma: tuple) -> Decision:
        """A copy with its address summary (``dma_addresses.summarise``)."""
        return Decision(self.access, self.domain, self.roots, self.keys, self.reason, self.blocker,
                        self.range_note, self.byte_range, dma)

    def __repr__(self) -> str:
        return f"Decision({self.access!r}, domain={self.domain!r}, keys={list(self.keys)!r}, reason={self.reason!r})"

    @property
    def tagged(self) -> bool:
        return bool(self.keys)


class Plan:
    """The decisions of a run, in the module's order (the decisions of one instruction
    adjacent), and each domain's scope keys once the scopes stage has counted them. The
    per-function stages build the first plan, a function at a time (``FunctionPass``);
    each module stage that changes something returns a new plan (``Rewrites.plan``) and
    leaves the one it was handed as it was."""

    __slots__ = ("decisions", "domain_keys")

    def __init__(self, decisions: list[Decision] | None = None,
                 domain_keys: dict[str, list[ScopeKey]] | None = None) -> None:
        self.decisions: list[Decision] = decisions if decisions is not None else []
        #: domain -> every scope key used by a tagged access, in first-use order
        self.domain_keys: dict[str, list[ScopeKey]] = domain_keys if domain_keys is not None else {}

    def tagged(self) -> Iterable[Decision]:
        return (d for d in self.decisions if d.keys)


def same_decisions(p: Plan, ds: Sequence[Decision]) -> list[Decision]:
    """The decisions of ``p`` about the accesses and domains of ``ds`` (decisions of an
    earlier plan), in the order of ``ds``: a decision's identity from stage to stage is its
    access and domain (a plan has one decision per access and domain)."""
    if not ds:
        return []
    of = {(id(d.access), d.domain): d for d in p.decisions}
    return [of[(id(d.access), d.domain)] for d in ds]


class Rewrites:
    """The builder of the plan a module stage hands on: the one way a stage rewrites a claim
    the provenance stage made (the regions stage's ``merge_regions``, the LDS-DMA rules of
    ``dma_safety``, ``finish``, the writer's fallback). It is made on the stage's input plan,
    which it never changes: each write replaces a decision with a new one (``Decision``
    is immutable) in a copy of the input's list, made at the first write (a stage that
    writes nothing copies nothing); it records which positions it wrote, so that the
    stage's result is what it wrote (:meth:`written`), not a comparison of two plans. A
    rule that reads a decision the stage may have rewritten reads :attr:`decisions` (the
    plan as it stands) or :meth:`now`. Key lists are rebound, never changed in place; so
    are each domain's keys (:meth:`add_key`, :meth:`new_domain`: the input's dict and
    lists stay as they were)."""

    __slots__ = ("_base", "_out", "_at", "_made", "_written", "_added", "_domain_keys", "_own")

    def __init__(self, plan: Plan) -> None:
        self._base = plan
        #: the plan's decisions as rewritten so far (None until the first write)
        self._out: list[Decision] | None = None
        #: id of a decision of the input or of one written here -> its position (made at
        #: the first write by decision, not by position; few such writes, around LDS-DMA)
        self._at: dict[int, int] | None = None
        #: every decision written here, in order (kept alive, so that an id in ``_at`` is
        #: never another's; the last write of a position is what the plan holds)
        self._made: list[Decision] = []
        #: the positions written, in the order of the writes (one may come twice)
        self._written: list[int] = []
        #: decisions added, each after a position of the plan (``insert``)
        self._added: list[tuple[int, Decision]] = []
        self._domain_keys = plan.domain_keys
        #: the domains whose key list is this builder's own copy
        self._own: set[str] | None = None

    @property
    def decisions(self) -> list[Decision]:
        """The plan's decisions as they stand (the input's list while nothing is written);
        added ones (``insert``) only in :meth:`plan`."""
        return self._out if self._out is not None else self._base.decisions

    @property
    def domain_keys(self) -> dict[str, list[ScopeKey]]:
        """Each domain's keys as they stand (the input's while nothing is added)."""
        return self._domain_keys

    def _position(self, d: Decision) -> int:
        at = self._at
        if at is None:
            at = self._at = {id(x): i for i, x in enumerate(self._base.decisions)}
            for i, x in zip(self._written, self._made, strict=True):
                at[id(x)] = i
        return at[id(d)]

    def now(self, d: Decision) -> Decision:
        """``d`` (of the input, or written here) as it stands now."""
        out = self._out
        if out is None:
            return d
        return out[self._position(d)]

    def _put(self, i: int, d: Decision) -> None:
        out = self._out
        if out is None:
            out = self._out = list(self._base.decisions)
        out[i] = d
        self._made.append(d)
        self._written.append(i)
        at = self._at
        if at is not None:
            at[id(d)] = i

    def withdraw(self, d: Decision, reason: str, blocker: str, at: int = -1) -> None:
        """``d`` claims nothing, for ``reason`` at ``blocker`` (``at``: its position in the
        plan, when the caller knows it)."""
        i = at if at >= 0 else self._position(d)
        out = self._out
        self._put(i, (out[i] if out is not None else d).claiming([], reason, blocker))

    def scope(self, d: Decision, keys: Sequence[ScopeKey]) -> None:
        """``d``, which claimed nothing, claims ``keys``."""
        i = self._position(d)
        out = self._out
        self._put(i, (out[i] if out is not None else d).claiming(keys, "", ""))

    def rebind(self, d: Decision, keys: Sequence[ScopeKey], at: int = -1) -> None:
        """``d`` claims ``keys`` instead of the keys it claims (its root's regions; ``at``
        as for :meth:`withdraw`)."""
        i = at if at >= 0 else self._position(d)
        out = self._out
        cur = out[i] if out is not None else d
        self._put(i, cur.claiming(keys, cur.reason, cur.blocker))

    def insert(self, after: int, d: Decision) -> None:
        """Add ``d`` to the plan after position ``after`` (in :meth:`plan`, after the
        decisions added there before)."""
        self._added.append((after, d))

    def add_key(self, domain: str, key: ScopeKey) -> None:
        """``key`` is a scope of ``domain`` (appended to its keys, when new to them)."""
        keys = self._keys_of(domain)
        if key not in keys:
            keys.append(key)

    def new_domain(self, domain: str, keys: list[ScopeKey]) -> None:
        """``domain``'s keys are ``keys``."""
        self._keys_of(domain)
        self._domain_keys[domain] = keys

    def _keys_of(self, domain: str) -> list[ScopeKey]:
        own = self._own
        if own is None:
            own = self._own = set()
            self._domain_keys = dict(self._domain_keys)
        keys = self._domain_keys.get(domain)
        if domain not in own:
            own.add(domain)
            keys = self._domain_keys[domain] = list(keys) if keys is not None else []
        assert keys is not None
        return keys

    def written(self) -> list[tuple[Decision, Sequence[ScopeKey], str, str]]:
        """The rewritten decisions (as they stand), in the plan's order, each with its keys,
        reason and blocker."""
        out = self._out
        if out is None:
            return []
        return [(d, d.keys, d.reason, d.blocker) for d in (out[i] for i in sorted(set(self._written)))]

    def added(self) -> list[Decision]:
        """The decisions added (``insert``), in the plan's order."""
        return [d for _, d in sorted(self._added, key=_FIRST)]

    def plan(self, domain_keys: dict[str, list[ScopeKey]] | None = None) -> Plan:
        """The new plan (the input itself when nothing was written, added or scoped);
        ``domain_keys``: its domains' keys instead of those as they stand."""
        keys = self._domain_keys if domain_keys is None else domain_keys
        if self._out is None and not self._added:
            if keys is self._base.domain_keys:
                return self._base
            return Plan(self._base.decisions, keys)
        out = self.decisions
        if self._added:
            merged: list[Decision] = []
            after = sorted(self._added, key=_FIRST)
            k = 0
            for i, d in enumerate(out):
                merged.append(d)
                while k < len(after) and after[k][0] == i:
                    merged.append(after[k][1])
                    k += 1
            out = merged
        return Plan(out, keys)


#: an added decision's position (``Rewrites.added``: sorted by it, stably)
_FIRST = itemgetter(0)


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


def decide(access: Access, fa: FunctionAnalysis, domain: str, family: str, brief: bool = False,
           shared: dict[tuple[int, ...], Sequence[Root]] | None = None) -> Decision | None:
    """Tag ``access`` in ``domain``? None when none of its operands can reach the domain.
    ``shared``: one list per set of roots (by their ids), for the roots and keys of the
    decisions that claim them (``plan_function``)."""
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
    if access.blocked:
        return Decision(access, domain, reason=access.blocked, blocker=_at_access(access))
    roots: list[Root] = []
    for p, value in relevant:
        if isinstance(value, Root) and value.domain == domain:
            if value not in roots:
                roots.append(value)
            continue
        reason, blocker = _operand_reason(fa, p.value, value, domain, brief)
        if not blocker and not brief:
            blocker = _at_access(access)  # a constant operand: the access itself
        return Decision(access, domain, reason=reason, blocker=blocker)
    if opaque:
        return Decision(access, domain, reason=reasons.OPAQUE_RESOURCE.text, blocker=_at_access(access))
    got: Sequence[Root] = roots
    if shared is not None:
        ids = tuple([id(r) for r in roots])
        had = shared.get(ids)
        if had is None:
            shared[ids] = roots
        else:
            got = had
    # roots and keys one list until regions or finish() rebind keys (never changed in place)
    return Decision(access, domain, got, got)


def plan_function(mod: Module, ma: ModuleAnalysis, roots: RootSet, fn: Function,
                  brief: bool = False) -> list[Decision]:
    """Decide every access of ``fn`` in every domain that concerns it; the decisions, in
    the function's order (those of one access adjacent). ``brief``: reasons without their
    explanation."""
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
            d = decide(acc, fa, domain, family, brief, shared)
            if d is not None:
                made.append(d)
    return made


def finish(p: Plan) -> Plan:
    """Collect each domain's scopes and withdraw the claims of domains with fewer than two:
    the new plan, with its domains' keys (``p`` is left as it was)."""
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
        claims = Rewrites(p)
        withdraw = claims.withdraw
        # one pass over the decisions (a module has a domain per kernel: one pass per
        # domain would be quadratic)
        for i, d in enumerate(p.decisions):
            if d.keys:
                got = why.get(d.domain)
                if got is not None:
                    withdraw(d, *got, at=i)
        for domain in lonely:
            del keys[domain]
        return claims.plan(keys)
    return Plan(p.decisions, keys)


#: the scope, in the LDS domain, of the accesses through a kernel's pointer arguments:
#: memory that is not LDS (a launch cannot pass an LDS address; design section 3)
OUTSIDE_LDS = Root(LDS_DOMAIN, "not LDS (kernel arguments)", "outside")


def outside_lds(mod: Module, p: Plan) -> Plan:
    """Give each access through a kernel's pointer argument whose pointer may reach LDS by
    its type (a generic pointer) the scope :data:`OUTSIDE_LDS` in the LDS domain, so that
    the LDS accesses' ``!noalias`` names it and its ``!noalias`` names every LDS scope:
    without it a store through ``out`` stays unsure against a tile (a lone tile would make
    no scope at all), where ``__restrict__`` tells them apart (design section 3). Only where
    every access tagged in the LDS domain is a load, store or atomic of LDS alone (no call:
    an LDS-DMA or a memcpy also touches global memory, which ``!noalias`` of its scope would
    disown) and the module has no LDS-DMA (whose scopes the rules of section 4b may give
    later). Run before ``finish``; returns the new plan (``p`` itself when no access got it,
    and ``p`` is left as it was)."""
    decisions = p.decisions
    lds_tagged = False
    for d in decisions:
        if d.keys and d.domain == LDS_DOMAIN:
            if d.inst.opcode not in PLAIN_OPCODES:
                return p
            lds_tagged = True
    if not lds_tagged or LDS_DMA_TEXT.search(mod.text) is not None:
        return p
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
        out.append(Decision(d.access, LDS_DOMAIN, outside, outside))
        added += 1
    return Plan(out, p.domain_keys) if added else p


def noalias_keys(own: Sequence[ScopeKey], domain_keys: Sequence[ScopeKey]) -> list[ScopeKey]:
    """An access's ``!noalias`` list: every scope of its domain (``domain_keys``) that
    overlaps none of its own scopes ``own`` (the one builder: the writer's shortcut for a
    domain of distinct buffers, ``pipeline._lists``, gives the same list)."""
    return [k for k in domain_keys if not any(may_overlap(k, o) for o in own)]


__all__ = ["OUTSIDE_LDS", "Decision", "Plan", "Region", "Rewrites", "ScopeKey", "UNKNOWN", "decide", "finish",
           "may_overlap", "noalias_keys", "outside_lds", "plan_function", "root_of", "same_decisions"]
