"""Scopes the code generator can live with around LDS-DMA (design section 4b).

LLVM 21 and later (measured: llvmlite 0.50's LLVM 22.1) decide the ``vmcnt`` wait between an
LDS-DMA write (``buffer_load ... lds``, ``global_load_lds_*``) and a later LDS access in
``SIInsertWaitcnts``. A DMA whose LDS memory operand carries ``!alias.scope`` gets a slot of
its own; a DMA without one only bumps the shared slot 0. An LDS access that carries *any*
alias metadata (``!alias.scope``, ``!noalias``, even ``!tbaa``) is checked against the slots
only, with ``MachineInstr::mayAlias``, and never against slot 0; an access with none waits
for every DMA in flight. So, in LLVM 22.1:

1. a DMA with no ``!alias.scope`` is invisible to every LDS access that carries alias
   metadata: no wait at all (``unscoped DMA``);
2. for a scoped DMA, alias analysis is asked about one lane's ``size`` bytes at the LDS
   pointer operand (not the immediate offset, not the other 63 lanes of the wave): an
   access that shares the DMA's scope but lies provably outside that small window gets no
   wait (``window``), and keeping only ``!noalias`` on it does not help (measured).

What this module does with it, per function, after the regions are known:

- (a) when some LDS-DMA of the function stays without an LDS scope (its destination was not
  traced, or it is untagged for any other reason), no LDS access of the function gets any
  LDS metadata from llnoalias: reason ``untraced LDS-DMA in the function``;
- (b) an access that shares an LDS scope with a DMA of the function keeps its metadata only
  where no sound alias analysis can tell the two apart (``keeps``); otherwise it gets no
  LDS metadata at all (neither ``!alias.scope`` nor ``!noalias``), so it waits for every
  DMA in flight;
- where the input itself is in state 1 (a DMA without ``!alias.scope`` beside LDS accesses
  that carry alias metadata), the DMA is scoped when it can be traced (even in a domain of
  one scope) and otherwise the run carries a warning with the line;
- in a function with a ``noalias`` pointer argument (the input's or ``--args noalias``'s),
  every DMA gets an ``!alias.scope`` (``scope_dmas``): LLVM 24's kernel-argument lowering
  gives LDS accesses ``!noalias`` there, which puts them in state 1 beside an unscoped DMA;
- (c) a DMA into a static LDS variable addressed directly gets no metadata at all
  (``lowered``), and its kernel no ``noalias`` from llnoalias (``has_lowered_dma``).

``keeps`` is false wherever the DMA may reach the access in flight out of order
(``dma_addresses.ordered``): LLVM 22's wait pass carries a scoped DMA's slot neither across a
block join where a predecessor lacks the DMA nor around a loop, so a scope the access shares
with the DMA stays only where the DMA's block dominates the access's (or the DMA is earlier in
the same block) and no path from the DMA that passes no wait crosses a loop back edge before
it (reason ``lds-dma-order``). Measured with llvmlite's LLVM: a read of a DMA's first dword
after an if/else with the DMA on one arm lost its wait. Otherwise ``keeps`` is true in two
cases only:

- the two addresses provably overlap: both decompose (through ``getelementptr``, casts,
  ``ptrtoint``/``inttoptr`` and additions) to the same base and the same variable terms,
  and the constant parts put the access's bytes inside the DMA's one-lane window. A sound
  alias analysis can then never answer NoAlias, whatever the code generator's passes do;
- the DMA's LDS pointer is an ``inttoptr`` of an integer that is not simply a
  ``ptrtoint`` (BasicAA does not look through ``inttoptr``; it takes it as an object of its
  own), and the access's base, found the same way BasicAA finds it, is a different object
  that is neither a phi nor a select (which BasicAA recurses into) nor an ``inttoptr`` of
  an integer that may compute the same (which CSE may merge into the DMA's): integers are
  compared by their decompositions' base and variable terms, whatever the constant, and one
  not known counts as the same; never by the SSA name. Probed with llvmlite's LLVM: a
  read of ``@A + 4`` through a getelementptr beside a DMA to ``inttoptr(ptrtoint @A + 8)``
  keeps its wait; to ``inttoptr(ptrtoint @A + 0)`` (folded to ``@A``) it loses it.
"""

from __future__ import annotations

from .. import reasons
from ..analysis.memory.intrinsics import LDS_DMA_TEXT
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..analysis.ranges.addresses import AABase, Walker, dma_lds_pointer, dma_operands
from ..ir.datalayout import DataLayout, layout_of
from ..ir.model import Function, Module
from . import dma_addresses
from .dma_addresses import AA_MD, SCOPE_MD, in_flight, keeps, ordered
from .scopes import Decision, Plan, Rewrites, may_overlap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..analysis.memory.accesses import Access


class Guarded:
    """What the guard found for the report: warnings ``(line, col, message)``."""

    def __init__(self) -> None:
        self.warnings: list[tuple[int, int, str]] = []
        #: the functions with an LDS-DMA that rule (c) leaves without metadata (``lowered``)
        self.lowered: set[str] = set()


def _code(d: Decision) -> str:
    inst = d.access.inst
    src = inst.function.source
    text = src.text[inst.start:inst.end] if src is not None else ""
    return text


def _short(d: Decision) -> str:
    code = " ".join(_code(d).strip().split(", !")[0].split())
    if len(code) > 90:
        code = code[:87] + "..."
    return f"line {d.access.inst.line}: `{code}`"


def _by_function(decisions: list[Decision], lds_summaries: bool = True) -> list[list[Decision]]:
    """The decisions grouped by function, in first-seen order; with ``lds_summaries`` only
    those of the LDS domain that carry an address summary (``summarise``)."""
    by_fn: dict[int, list[Decision]] = {}
    fn: object = None
    cur: list[Decision] = []
    for d in decisions:
        if lds_summaries and (d.dma is None or d.domain != LDS_DOMAIN):
            continue
        # a function's decisions are adjacent in a plan: one look-up per function
        if d.access.inst.function is not fn:
            fn = d.access.inst.function
            got = by_fn.get(id(fn))
            if got is None:
                got = by_fn[id(fn)] = []
            cur = got
        cur.append(d)
    return list(by_fn.values())


def _static_lds(mod: Module) -> frozenset[str]:
    """The module's static (sized) LDS variables, which LLVM's module-LDS lowering scopes."""
    return mod.facts.static_lds


def _dma_base(mod: Module, w: Walker, access: Access) -> AABase | None:
    """Where BasicAA's underlying-object walk stops on an LDS-DMA's LDS pointer, or None
    when ``access`` is no LDS-DMA (or lacks the operand)."""
    ptr = dma_lds_pointer(mod, access)
    return None if ptr is None else w.aa_base(ptr)


UNTRACED = reasons.UNTRACED_LDS_DMA.text
WINDOW = reasons.LDS_DMA_WINDOW.text
ORDER = reasons.LDS_DMA_ORDER.text
SAME_BYTES = reasons.LDS_DMA_SAME_BYTES.text


PRODUCER_WINDOW = reasons.PRODUCER_WINDOW.text
LOWERED = reasons.LOWERED_LDS_DMA.text


def lowered(mod: Module, claims: Rewrites, out: Guarded) -> None:
    """Rule (c), before ``guard``: a DMA whose LDS destination is a static (sized) variable
    addressed directly (through ``getelementptr``, casts and constant expressions, which
    LLVM's module-LDS lowering follows; not through ``inttoptr``, which it does not).

    When a kernel uses two static variables or more, the lowering scopes every access it
    finds of them, and one that already carries ``!alias.scope`` / ``!noalias`` is given
    the intersection with its own: scopes of another domain (llnoalias's, the argument
    domain's) drop out, ``!alias.scope`` goes away and an empty ``!noalias !{}`` stays
    (LLVM's own test ``lower-lds-struct-aa-merge.ll``). A DMA that llnoalias tagged, in any
    domain, so leaves the lowering unscoped, and every LDS access with metadata then misses
    it (rule (a)'s state, made by LLVM): measured with llvmlite's LLVM, a read of the DMA's
    own bytes lost its wait. So such a DMA gets no metadata from llnoalias in any domain,
    and its function's LDS accesses none in the LDS domain (an access of the same static
    variable would have its claim replaced anyway; a claim on another access can take away
    a wait that the input had only by chance). The function's other DMAs get no metadata
    either: one that llnoalias scoped takes a slot of its own and changes which DMA the
    lowered reads are checked against (measured with llc-19).

    Where the lowering scopes the DMA and an access of the same variable that alias
    analysis may tell apart from the DMA's one-lane window, LLVM 21 and later lose the wait
    whatever llnoalias does: a warning with the access's line."""
    static = _static_lds(mod)
    if not static:
        return
    dl = layout_of(mod)
    for ds in _by_function(claims.decisions, lds_summaries=False):
        # every DMA of the function, not only the lowered ones: one that llnoalias scoped (an
        # argument-domain scope alone is enough) takes a slot of its own, which changes which
        # of the lowered DMAs the reads are checked against (measured with llc-19)
        insts = {id(d.access.inst) for d in ds if dma_operands(d.access.intrinsic) is not None}
        if not insts:
            continue
        first = _first_lowered(mod, ds, static, dl)
        if first is None:
            continue
        out.lowered.add(first.access.inst.function.name)
        noalias = _noalias_args(first.access.inst.function)
        if noalias:
            _warn(out, first, f"LDS-DMA into a static LDS variable in a kernel whose input has noalias pointer "
                  f"arguments ({', '.join(noalias)}): LLVM 24's kernel-argument lowering gives LDS accesses "
                  "!noalias, and this DMA cannot be scoped (LLVM's module-LDS lowering replaces its metadata), "
                  "so LLVM 24 may put no vmcnt wait between them; llnoalias adds no noalias to this kernel")
        blocker = _short(first)
        for d in ds:
            if d.keys and (d.domain == LDS_DOMAIN or id(d.access.inst) in insts):
                claims.withdraw(d, LOWERED, blocker)
        risky = _lowered_window(ds, insts)
        if risky is not None:
            m, acc = risky
            _warn(out, acc, "LDS access of a static LDS variable that the LDS-DMA at "
                  f"{_short(m)} may still be writing: LLVM's module-LDS lowering scopes both, and "
                  "LLVM 21 and later may then put no vmcnt wait between them (alias analysis "
                  "sees one lane's window of the DMA), with or without llnoalias")


def _first_lowered(mod: Module, ds: Sequence[Decision], static: frozenset[str], dl: DataLayout) -> Decision | None:
    """The first LDS-DMA of ``ds`` (one function's decisions) into a static LDS variable of
    ``static`` addressed directly (rule (c)), or None."""
    w: Walker | None = None
    for d in ds:
        if dma_operands(d.access.intrinsic) is None:
            continue
        if w is None:
            w = Walker(mod, d.access.inst.function, dl)
        base = _dma_base(mod, w, d.access)
        if base is not None and base[1] == "global" and base[0] in static:
            return d
    return None


def has_lowered_dma(mod: Module, ds: Sequence[Decision]) -> bool:
    """Does the function of ``ds`` (its decisions, while its operands are alive) have an
    LDS-DMA that rule (c) leaves unscoped? Its kernel then gets no ``noalias`` from
    ``--args noalias`` (``attributes.arguments_of``): LLVM 24's kernel-argument lowering
    would give its LDS accesses ``!noalias``, and such an access is checked only against
    scoped DMAs."""
    if not ds or not dma_addresses._has_static_lds(mod):
        return False
    if not any(dma_operands(d.access.intrinsic) is not None for d in ds):
        return False
    return _first_lowered(mod, ds, _static_lds(mod), layout_of(mod)) is not None


def _noalias_args(fn: Function) -> list[str]:
    """The input's ``noalias`` pointer arguments of ``fn``."""
    return [a.name for a in fn.args if a.type.is_pointer and "noalias" in a.attrs]


def _lowered_window(ds: list[Decision], insts: set[int]) -> tuple[Decision, Decision] | None:
    """A lowered DMA of ``insts`` and an access of the same static variable, addressed
    directly too, that it may still be writing and that alias analysis may tell apart from
    its one-lane window (the LDS domain's summaries; none without LDS roots)."""
    dmas = [d for d in ds if d.domain == LDS_DOMAIN and d.dma is not None and d.dma[0]
            and id(d.access.inst) in insts]
    for m in dmas:
        assert m.dma is not None
        for d in ds:
            if d.domain != LDS_DOMAIN or d.dma is None or d.dma[0]:
                continue
            if d.dma[2][1] != "global" or d.dma[2][0] != m.dma[2][0]:
                continue
            if in_flight(d.dma, m.dma) and not keeps(d.dma, m.dma):
                return m, d
    return None


def dynamic_lds(mod: Module) -> frozenset[str]:
    """The module's dynamic LDS variables (external, zero-sized): all start at one address."""
    return mod.facts.dynamic_lds


def same_bytes(d: Decision, m: Decision, dynamic: frozenset[str]) -> bool:
    """May access ``d`` of one dynamic LDS variable touch bytes that DMA ``m`` into another
    writes? Every dynamic LDS variable starts at the start of dynamic LDS, so a byte range of
    one (an offset from its start: ``byte_range``) is a byte range of the others; without a
    range, or with several roots, they may."""
    return _shares(d, _dynamic_roots(d, dynamic), m, _dynamic_roots(m, dynamic))


def _dynamic_roots(d: Decision, dynamic: frozenset[str]) -> list[Root]:
    """The roots of ``d`` that are (or hold) a dynamic LDS variable of ``dynamic``."""
    return [r for r in d.roots if r.kind == "lds" and not dynamic.isdisjoint(r.members)]


def _shares(d: Decision, mine: list[Root], m: Decision, theirs: list[Root]) -> bool:
    """``same_bytes`` of ``d`` and ``m`` given their dynamic roots (``_dynamic_roots``),
    found once per decision by ``guard``."""
    if not mine or not theirs:
        return False
    if len(d.roots) == 1 and len(m.roots) == 1 and mine[0] is theirs[0]:
        return False  # one variable: its scopes tell the rest (rule (b))
    a, b = d.byte_range, m.byte_range
    return a is None or b is None or (a[0] < b[1] and b[0] < a[1])


def guard(claims: Rewrites, dynamic: frozenset[str] = frozenset()) -> list[Decision]:
    """Rules (a) and (b) over the plan (``claims``: as ``lowered`` left it), before
    ``finish``. Returns the DMAs of functions whose input is already in the unsafe state (to
    ``rescue`` after ``finish``). ``dynamic``: the module's dynamic LDS variables
    (``dynamic_lds``), which share bytes."""
    unsafe_in: list[Decision] = []
    now = claims.now
    for ds in _by_function(claims.decisions):
        dmas = [d for d in ds if d.dma is not None and d.dma[0]]
        if not dmas:
            continue
        # no access of the function with the input's alias metadata or a root of a DMA
        # (``walked_none``): rule (a) alone can change a claim
        quiet = dma_addresses.walked_none(ds)
        if not quiet and any(AA_MD.search(_code(d)) for d in ds if d.dma is not None and not d.dma[0]):
            unsafe_in.extend(d for d in dmas if not SCOPE_MD.search(_code(d)))
        bare = [d for d in dmas if not d.keys]
        if bare:
            blocker = _short(bare[0])
            for d in ds:
                if d.keys:
                    claims.withdraw(d, UNTRACED, blocker)
            continue
        if dynamic:
            # shared bytes: the byte ranges say it, no address walk is made for it; an
            # access without a summary of its own counts as reached by the DMA in flight
            # (``same_bytes``, with each decision's dynamic roots found once, and each
            # DMA's line written once)
            theirs = [(m, t) for m in dmas if (t := _dynamic_roots(m, dynamic))]
            shorts: dict[int, str] = {}
            # the decisions of one root share its roots list: its dynamic roots are found
            # once per list (kept beside it, so an id is never another's)
            found: dict[int, tuple[Sequence[Root], list[Root]]] = {}
            for d in ds if theirs else ():
                if d.keys and d.dma is not None and not d.dma[0]:
                    had = found.get(id(d.roots))
                    if had is None or had[0] is not d.roots:
                        had = found[id(d.roots)] = (d.roots, _dynamic_roots(d, dynamic))
                    mine = had[1]
                    if not mine:
                        continue
                    other = None
                    for m, t in theirs:
                        if _shares(d, mine, m, t) and m.dma is not None and in_flight(d.dma, m.dma):
                            other = m
                            break
                    if other is not None:
                        said = shorts.get(id(other))
                        if said is None:
                            said = shorts[id(other)] = _short(other)
                        claims.withdraw(d, SAME_BYTES, said)
        if quiet:
            continue
        # DMAs with equal scopes share one slot, and SIInsertWaitcnts asks alias analysis
        # about the slot's first DMA only: when any DMA of a group may be in flight, the
        # access must keep its claim against every DMA of the group
        groups: dict[tuple[int, ...], tuple[Sequence[object], list[Decision]]] = {}
        for d in dmas:
            groups.setdefault(tuple([id(k) for k in d.keys]), (d.keys, []))[1].append(d)
        for d in ds:
            d = now(d)  # (as the rule of shared bytes above left it)
            if not d.keys or d.dma is None or d.dma[0]:
                continue
            for keys, members in groups.values():
                if not any(may_overlap(k, kd) for k in d.keys for kd in keys):  # type: ignore[arg-type]
                    continue
                if not any(m.dma is not None and in_flight(d.dma, m.dma) for m in members):
                    continue
                bad = next((m for m in members if m.dma is not None and not keeps(d.dma, m.dma)), None)
                if bad is not None:
                    assert bad.dma is not None
                    claims.withdraw(d, WINDOW if ordered(d.dma, bad.dma) else ORDER, _short(bad))
                    break
    return unsafe_in


def _apart(d: Decision, m: Decision) -> bool:
    """Are the bytes ``d`` and ``m`` (two decisions of one root) touch known and apart? (The
    dynamic LDS variables of a module are one root, told apart only so: ``roots``.)"""
    a, b = d.byte_range, m.byte_range
    return a is not None and b is not None and (a[1] <= b[0] or b[1] <= a[0])


def _why(d: Decision) -> str:
    if not d.reason or d.reason == reasons.PROVENANCE_NOT_EXPLAINED.text:
        return reasons.DMA_DESTINATION_UNTRACED.text
    return d.reason


def rescue(claims: Rewrites, unsafe_in: list[Decision], out: Guarded) -> None:
    """After ``finish``: a DMA of an input already in the unsafe state (``unsafe_in``: its
    decisions in the plan of ``claims``) gets its root's scope when it was traced (also in a
    domain of one scope); else a warning, one per function (at its first such DMA)."""
    left: dict[int, list[Decision]] = {}
    for d in unsafe_in:
        if d.keys:
            continue
        if _scope_traced(claims, d):
            continue
        left.setdefault(id(d.access.inst.function), []).append(d)
    for ds in left.values():
        d = ds[0]
        more = f" (and {len(ds) - 1} more LDS-DMA like it in {d.access.inst.function.name})" if len(ds) > 1 else ""
        _warn(out, d, "LDS-DMA without !alias.scope in a function whose LDS accesses carry alias metadata "
              "(!alias.scope, !noalias or !tbaa): LLVM 21 and later put no vmcnt wait between them; "
              f"llnoalias cannot scope it ({_why(d)}){more}")


def _scope_traced(claims: Rewrites, d: Decision) -> bool:
    """Give a DMA traced to one root, left untagged only because its domain has one scope,
    its root's scope (a domain of one scope makes no other claim); False when it is not
    such a DMA."""
    if not (d.roots and len(d.roots) == 1 and reasons.SINGLE_SCOPE.matches(d.reason)):
        return False
    claims.add_key(d.domain, d.roots[0])
    claims.scope(d, list(d.roots))
    return True


#: the domain of an LDS-DMA that gets a scope of its own (``scope_dmas``): one per DMA, so
#: that no DMA's ``!noalias`` names another's scope
DMA_DOMAIN = "llnoalias.dma."


def scope_dmas(mod: Module, claims: Rewrites, kernels: set[str]) -> None:
    """After ``residual``: in the functions ``kernels`` (those with a ``noalias`` pointer
    argument in the input or from ``--args noalias``), every LDS-DMA that would end without
    ``!alias.scope`` gets one. LLVM 24's kernel-argument lowering gives an LDS access whose
    object it can tell apart from the ``noalias`` arguments a ``!noalias``, and a read with
    any alias metadata is checked only against scoped DMAs. A DMA traced to one root gets
    its root's scope (``rescue``'s way, also in a domain of one scope); any other gets a
    scope of its own in a domain of its own, ``llnoalias.dma.<function>.<n>`` (no claim
    beside it: rule (a) still keeps LDS scopes from the function's accesses). A DMA that
    rule (c) leaves without metadata keeps none, nor does any other DMA of its function
    (``kernels`` leaves such functions out; their kernel gets no ``noalias`` from llnoalias,
    and ``lowered`` warns of the input's own)."""
    if not kernels:
        return
    text = mod.text
    ds = claims.decisions
    n = 0
    counts: dict[str, int] = {}
    while n < len(ds):
        d = ds[n]
        inst = d.access.inst
        m = n + 1
        while m < len(ds) and ds[m].access.inst is inst:
            m += 1
        run = ds[n:m]
        n = m
        if (inst.function.name not in kernels or dma_operands(d.access.intrinsic) is None
                or any(x.keys for x in run) or SCOPE_MD.search(text, inst.start, inst.end)):
            continue
        lds = next((x for x in run if x.domain == LDS_DOMAIN), None)
        if lds is not None and _scope_traced(claims, lds):
            continue
        fn = inst.function.name.lstrip("@").strip('"')
        k = counts[fn] = counts.get(fn, 0) + 1
        domain = f"{DMA_DOMAIN}{fn}.{k}"
        root = Root(domain, f"dma.line{inst.line}", "dma")
        claims.new_domain(domain, [root])
        # after the access's own decisions (those of one instruction stay adjacent)
        claims.insert(m - 1, Decision(d.access, domain, (root,), [root]))


def residual(claims: Rewrites, out: Guarded) -> None:
    """After ``rescue``: warn where the input's own metadata keeps an access in the unsafe
    shape that llnoalias cannot undo (it adds metadata, never removes it). An LDS access
    that carries the producer's ``!alias.scope``/``!noalias``/``!tbaa`` is checked by
    ``SIInsertWaitcnts`` against every scoped LDS-DMA through alias analysis, which may tell
    it apart from the DMA's one-lane window although another lane writes its bytes (rule
    (b) of the module's docstring); llnoalias withholds its own scopes from such an access,
    but the producer's stay. One warning per function, at the first such access.

    In such a function the other LDS accesses get no LDS scopes from llnoalias either: an
    access the input left without metadata waits for every DMA in flight, and a wait the
    input has at the risky access may be owed to it alone (measured on generated kernels:
    a read through ``inttoptr`` that llnoalias scoped no longer waited, and the producer's
    read after it lost its wait with it).

    Nor does a DMA that the input already scoped get more scopes from llnoalias, in any
    domain: DMAs of one scope list share one slot of the wait pass, and a wait the input has
    for one of them covers the others of its slot; a scope that splits the slot can leave a
    DMA in flight at an access whose producer's `!noalias` names its scope (found by llnoalias
    check on Triton's gfx950 attention: its reads after the first lost their wait)."""
    risky_fns: dict[int, str] = {}
    for ds in _by_function(claims.decisions):
        if dma_addresses.walked_none(ds):  # no access with the input's alias metadata
            continue
        dmas = [d for d in ds if d.dma is not None and d.dma[0] and (d.keys or SCOPE_MD.search(_code(d)))]
        if not dmas:
            continue
        risky: list[tuple[Decision, Decision]] = []
        for d in ds:
            if d.dma is None or d.dma[0] or not AA_MD.search(_code(d)):
                continue
            roots = {id(r) for r in d.roots}
            for m in dmas:
                if roots and not roots & {id(r) for r in m.roots}:
                    continue  # another buffer: the scopes tell them apart, rightly
                if _apart(d, m):
                    continue  # bytes of one buffer proved apart (its regions): rightly too
                if m.dma is not None and in_flight(d.dma, m.dma) and not keeps(d.dma, m.dma):
                    risky.append((d, m))
                    break
        if risky:
            d, m = risky[0]
            risky_fns[id(d.access.inst.function)] = _short(d)
            for other in ds:
                if other.keys and other.dma is not None and not other.dma[0]:
                    claims.withdraw(other, PRODUCER_WINDOW, _short(d))
            more = (f" (and {len(risky) - 1} more LDS access like it in {d.access.inst.function.name})"
                    if len(risky) > 1 else "")
            _warn(out, d, "LDS access with the input's own alias metadata (!alias.scope, !noalias or "
                  f"!tbaa) that alias analysis may tell apart from the LDS-DMA at {_short(m)} by one "
                  "lane's window although other lanes write its bytes: LLVM 21 and later may put no "
                  "vmcnt wait between them; llnoalias check IN says whether it does, and where it finds the "
                  f"race, --repair (annotate or compile) drops that metadata or scopes the DMA{more}")
    if risky_fns:
        for i, d in enumerate(claims.decisions):
            if (d.keys and id(d.access.inst.function) in risky_fns and dma_operands(d.access.intrinsic) is not None
                    and SCOPE_MD.search(_code(d))):
                claims.withdraw(d, PRODUCER_WINDOW, risky_fns[id(d.access.inst.function)], at=i)


def _warn(out: Guarded, d: Decision, message: str) -> None:
    code = _code(d)
    out.warnings.append((d.access.inst.line, len(code) - len(code.lstrip()) + 1, message))


def static_lds(mod: Module, p: Plan, out: Guarded) -> None:
    """Warn where LLVM's module-LDS lowering will put the input in the unsafe state itself:
    an LDS-DMA through an address it cannot see through (an ``inttoptr``), left without
    !alias.scope, in a function that accesses two static (sized) LDS variables directly,
    whose accesses the lowering scopes. Probed with llvmlite's LLVM: no vmcnt wait between
    such a DMA and a read of its bytes (llc-19 waits); ``--lds all`` scopes the DMA."""
    if not LDS_DMA_TEXT.search(mod.text):
        return
    static = _static_lds(mod)
    if len(static) < 2:
        return
    scoped = {id(d.access.inst) for d in p.decisions
              if d.keys and (d.domain == LDS_DOMAIN or d.domain.startswith(DMA_DOMAIN))}
    from ..analysis.memory.accesses import find_accesses

    dl = layout_of(mod)
    for fn in mod.functions:
        if fn.body_pending or not fn.instrs:
            continue
        accs = find_accesses(mod, fn)
        dmas = [a for a in accs if dma_operands(a.intrinsic) and id(a.inst) not in scoped
                and not SCOPE_MD.search(mod.text[a.inst.start:a.inst.end])]
        if not dmas:
            continue
        w = Walker(mod, fn, dl)
        seen: set[str] = set()
        for a in accs:
            if a.kind in ("load", "store", "atomicrmw", "cmpxchg") and a.pointers:
                name, kind, _ = w.aa_base(a.pointers[0].value)
                if kind == "global" and name in static:
                    seen.add(name)
        if len(seen) < 2:
            continue
        hidden = [a for a in dmas if (base := _dma_base(mod, w, a)) is not None and base[1] != "global"]
        if hidden:
            first = Decision(hidden[0], LDS_DOMAIN)
            more = f" (and {len(hidden) - 1} more in {fn.name})" if len(hidden) > 1 else ""
            _warn(out, first, "LDS-DMA through an integer address beside accesses of static LDS variables: "
                  "LLVM's module-LDS lowering scopes those accesses and not this DMA, and LLVM 21 and later "
                  "then put no vmcnt wait between them; llnoalias can scope the DMA with --lds all, and "
                  f"llnoalias stats --lds all IN measures what that does to this module's waits{more}")


__all__ = ["DMA_DOMAIN", "LOWERED", "ORDER", "PRODUCER_WINDOW", "UNTRACED", "WINDOW", "Guarded", "guard",
           "has_lowered_dma", "lowered", "rescue", "residual", "scope_dmas", "static_lds"]
