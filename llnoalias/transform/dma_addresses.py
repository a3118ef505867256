"""The address summaries of the LDS-DMA rules (design section 4b), and the questions the rules
ask of two of them.

``summarise`` gives each decision its summary (plain data a worker can send) from two
analyses: the addresses (``analysis/ranges/addresses``: ``Walker`` decomposes an address and
finds the object BasicAA's walk stops at) and the waits (``analysis/memory/waits``: which DMA
may still be in flight at an access, no full ``vmcnt(0)`` wait on every path between them;
dominators and loop back edges, over ``Function.successors``). ``in_flight``, ``ordered`` and
``keeps`` read two summaries. See ``dma_safety``'s docstring for the rules.
"""

from __future__ import annotations

from .. import shortcuts
from ..analysis.memory.waits import WaitFlow, asm_waits
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..analysis.ranges.addresses import AABase, IntSem, Sem, Walker, access_address, dma_operands
from ..analysis.ranges.analyses import FunctionAnalyses
from ..ir.lazyre import lazy
from ..ir.lexer import NAME_END
from .scopes import Decision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..ir.model import Function, Module

AA_MD = lazy(r"!(alias\.scope|noalias|tbaa|tbaa\.struct)" + NAME_END)
SCOPE_MD = lazy(r"!alias\.scope" + NAME_END)
#: what every match of ``AA_MD`` begins with (``tbaa.struct`` begins with ``!tbaa``)
AA_WORDS = ("!alias.scope", "!noalias", "!tbaa")
#: what every word of ``AA_WORDS`` begins with: ``_read`` looks for the words from the first
#: one on, and for none when the span has none (the ``aa-first`` shortcut; off: over the
#: whole span)
AA_FIRST = "!"

#: One access's address, summarised while its function's operands are alive (plain data,
#: shipped by workers): whether it is an LDS-DMA; the semantic decomposition (base,
#: constant, variable terms) or None; BasicAA's base (name, kind, integer operand of an
#: inttoptr); the bytes it touches at its address (a DMA: one lane's), or None.
#: Then where it is: its block, its index in the function, the index of the last full
#: ``vmcnt`` wait before it in its block (-1: none), and for a DMA the blocks a path from it
#: reaches without passing such a wait (empty when a wait follows it in its own block).
#: Then (appended; fields are never reordered) its block's place in the dominator tree, as
#: preorder and postorder numbers (-1, -1: not reached from the entry), for a DMA the blocks
#: a path from it reaches without passing a wait after crossing a loop back edge, and, when
#: BasicAA's base is an ``inttoptr``, the base and variable terms of its integer operand's
#: decomposition (None: not known).
Summary = tuple[bool, "Sem | None", AABase, "int | None", int, int, int, tuple[int, ...], int, int,
                tuple[int, ...], "IntSem | None"]


def unsummarised(is_dma: bool) -> Summary:
    """The summary of an access whose addresses no rule reads (``summarise``): no
    decomposition, an unknown base, and no place (index -1), which ``in_flight`` and
    ``keeps`` answer as "may be in flight" and "may not keep" were it ever asked about.
    One object for every DMA and one for every other access (a worker's reply sends it once)."""
    return _UNSUMMARISED[is_dma]


_UNSUMMARISED: tuple[Summary, Summary] = ((False, None, ("", "unknown", ""), None, -1, -1, -1, (), -1, -1, (), None),
                                          (True, None, ("", "unknown", ""), None, -1, -1, -1, (), -1, -1, (), None))


def walked_none(ds: Sequence[Decision]) -> bool:
    """Are the LDS decisions ``ds`` of a function with an LDS-DMA all ``unsummarised``? Then
    ``_read`` found that no rule reads any of their summaries: no access of the function
    shares a root with a DMA of it, none carries the input's alias metadata, and the module
    has no static LDS variable (``dma_safety.guard`` and ``residual`` rely on it)."""
    return all(d.dma is not None and d.dma[5] < 0 for d in ds)


def _has_static_lds(mod: Module) -> bool:
    """Does the module define a static (sized) LDS variable (its facts)?"""
    return bool(mod.facts.static_lds)


def _read(mod: Module, lds: list[Decision], is_dma: list[bool]) -> list[bool]:
    """Which of ``lds`` (the LDS decisions of a function with an LDS-DMA) the rules of
    ``dma_safety`` may read the address summary of. A summary only says which claims go;
    it is read

    - by rule (b) (``guard``) for an access whose scopes may overlap a DMA's: only scopes
      of one root overlap (``scopes.may_overlap``; a region is its root's), and a
      decision's scopes are its roots' or their regions, or none;
    - by ``residual`` for an access that carries the input's own alias metadata;
    - by rule (c)'s window check (``lowered``) for any access beside a DMA into a static
      LDS variable;

    and then also for every DMA of the function. An access none of these reads gets
    ``unsummarised``: no walk, and no flow of waits when nothing of the function is read."""
    if _has_static_lds(mod):
        return [True] * len(lds)
    dma_roots = {id(r) for d, m in zip(lds, is_dma, strict=True) if m for r in d.roots}
    text = mod.text
    # one look over the text the decisions span for the words ``AA_MD`` begins with: a match
    # inside an instruction has one of them inside it, so without any no instruction matches
    lo = min(d.access.inst.start for d in lds)
    hi = max(d.access.inst.end for d in lds)
    # (a span without ``AA_FIRST``, as a kernel with no metadata has, is told by one scan
    # for the byte)
    bang = text.find(AA_FIRST, lo, hi) if shortcuts.ON["aa-first"] else lo
    search = AA_MD.search if bang >= 0 and any(text.find(w, bang, hi) >= 0 for w in AA_WORDS) else None
    need = [False] * len(lds)
    for n, d in enumerate(lds):
        if is_dma[n]:
            continue
        inst = d.access.inst
        if ((d.roots and not dma_roots.isdisjoint(map(id, d.roots)))
                or (search is not None and search(text, inst.start, inst.end))):
            need[n] = True
    if any(need):
        for n, m in enumerate(is_dma):
            if m:
                need[n] = True
    return need


def summarise(analyses: FunctionAnalyses, fn: Function, decisions: list[Decision]) -> list[Decision]:
    """Every LDS decision of ``fn`` (of ``decisions``) with its address summary
    (``Decision.dma``), made while the function's operands are alive; ``unsummarised``
    where no rule reads it (``_read``). A new list where ``fn`` has an LDS-DMA (the other
    decisions shared), else ``decisions``, which are left as they were. Its ranges are
    ``analyses``' (the ranges stage measures the same function with them)."""
    mod = analyses.mod
    at = [i for i, d in enumerate(decisions) if d.domain == LDS_DOMAIN]
    if not at:
        return decisions
    lds = [decisions[i] for i in at]
    is_dma = [d.access.intrinsic is not None and dma_operands(d.access.intrinsic) is not None for d in lds]
    if not any(is_dma):
        return decisions
    out = list(decisions)
    need = _read(mod, lds, is_dma)
    if not any(need):
        for i, d, m in zip(at, lds, is_dma, strict=True):
            out[i] = d.summarised(_UNSUMMARISED[m])
        return out
    dl = analyses.layout
    ranges = analyses.ranges(fn)
    w = Walker(mod, fn, dl, ranges)
    flow = WaitFlow(mod, fn)
    for i, d, needed in zip(at, lds, need, strict=True):
        acc = d.access
        if not needed:
            out[i] = d.summarised(unsummarised(dma_operands(acc.intrinsic) is not None))
            continue
        dma, ptr, size = access_address(mod, acc, dl)
        pos = flow.where(acc.inst, dma)
        place = flow.place(acc.inst, dma)
        if ptr is None:
            out[i] = d.summarised((dma, None, ("", "unknown", ""), None, *pos, *place, None))
            continue
        aa = w.aa_base(ptr[1])
        out[i] = d.summarised((dma, w.sem(ptr[0], ptr[1]), aa, size, *pos, *place, w.int_sem(aa)))
    return out


def in_flight(acc: Summary, dma: Summary) -> bool:
    """May ``dma`` still be in flight when ``acc`` runs (a path from it with no full wait)?"""
    blk_a, idx_a, kill_a = acc[4], acc[5], acc[6]
    blk_d, idx_d, reach_d = dma[4], dma[5], dma[7]
    if idx_a < 0 or idx_d < 0:  # ``unsummarised``: not known
        return True
    if blk_a == blk_d and idx_a > idx_d and kill_a < idx_d:
        return True
    return kill_a < 0 and blk_a in reach_d


def ordered(acc: Summary, dma: Summary) -> bool:
    """Does ``dma`` come before ``acc`` on every path that may leave it in flight there, in
    the order the code generator's wait pass carries a scoped DMA's slot? True when the DMA
    is earlier in the access's own block, or when the DMA's block dominates the access's and
    no path from the DMA that passes no wait crosses a loop back edge before it reaches the
    access (the pass does not carry the slot across a join where a predecessor lacks the
    DMA, nor around a loop). Also true when the DMA does not reach the access at all."""
    if not in_flight(acc, dma):
        return True
    blk_a, idx_a = acc[4], acc[5]
    blk_d, idx_d = dma[4], dma[5]
    if blk_a == blk_d:
        # earlier in the DMA's own block: reached around a loop
        return idx_a > idx_d and acc[6] < idx_d
    pre_a, post_a, pre_d, post_d = acc[8], acc[9], dma[8], dma[9]
    if pre_a < 0 or pre_d < 0 or not (pre_d <= pre_a and post_a <= post_d):
        return False  # a block the DMA's block does not dominate (a join)
    return blk_a not in dma[10]


def keeps(acc: Summary | None, dma: Summary) -> bool:
    """May ``acc`` keep a scope it shares with ``dma`` (see the module's docstring)? Never
    where the DMA may reach it in flight out of order (``ordered``)."""
    if acc is None or acc[5] < 0 or dma[5] < 0:  # ``unsummarised``: not known
        return False
    if not ordered(acc, dma):
        return False
    sem_a, aa_a, size_a = acc[1], acc[2], acc[3]
    sem_d, aa_d, size_d = dma[1], dma[2], dma[3]
    if sem_a is not None and sem_d is not None and size_a and size_d:
        if sem_a[0] and sem_a[0] == sem_d[0] and sem_a[2] == sem_d[2]:
            c = sem_a[1] - sem_d[1]
            if c < size_d and c + size_a > 0:
                return True
    name_d, kind_d, _ = aa_d
    name_a, kind_a, _ = aa_a
    if kind_d != "inttoptr":
        return False
    if kind_a in ("phi", "unknown") or name_a == name_d:
        return False
    if kind_a != "inttoptr":
        return True
    # two integer addresses are one object to the code generator when they compute the
    # same base and variable terms (CSE merges them, whatever their names); not known: one
    int_a, int_d = acc[11], dma[11]
    return int_a is not None and int_d is not None and int_a != int_d


#: (``Walker``, ``dma_operands``, ``asm_waits`` and the summary parts' types are the analyses'
#: names, kept importable from here)
__all__ = ["AABase", "IntSem", "Sem", "Summary", "Walker", "asm_waits", "dma_operands", "in_flight", "keeps",
           "ordered", "summarise", "unsummarised", "walked_none", "AA_MD", "SCOPE_MD"]
