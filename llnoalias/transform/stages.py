"""The annotate pipeline as a tuple of stages, and what each one concluded.

A run of ``llnoalias annotate`` is the tuple ``pipeline.PIPELINE``, run in order by one
loop (``pipeline.run_stages``), in the manner of xDSL's ``ModulePass`` list or LLVM's pass
pipeline::

    provenance -> ranges -> arguments -> regions -> dma-safety -> scopes -> dma-scopes -> write

Each stage is a :class:`Stage`: a ``name``, what it concludes about (``unit``: each
``function``, or the ``module``), and ``run``, a function of the run's inputs and the
results before it that returns the stage's own result. A result is immutable, and so is
the plan a stage was handed: a decision is immutable (``scopes.Decision``), and a stage
that rewrites one hands on a new plan with a new decision in its place (``scopes.Rewrites``,
the one builder of a rewritten plan), so a result holds its own stage's decisions, as they
were when it was made. The LDS-DMA stages' results are what their ``Rewrites`` wrote. A
result prints
itself: ``text()`` is what ``llnoalias --print-after STAGE`` writes on stderr, and what
``--stop-after STAGE`` (or ``pipeline.run_until`` from Python) writes after running the stages
up to that one alone.

The three per-function stages (provenance, ranges, arguments) run one function at a time,
fused into one walk over the module (``function_pass.FunctionPass``, as LLVM's function-pass
adaptor runs a function pipeline), so that a function's analyses (one cache,
``analysis.ranges.analyses.FunctionAnalyses``) are released once all three are done;
worker processes run them for groups of functions and ship their results back as plain
per-function data (``FunctionPass.ship`` / ``land``). Their result for the module is the
list of per-function results (:class:`PerFunction`). The module stages each run once,
over the whole plan.

A block per stage and function, ``*** after STAGE: @fn ***``, then one line per access and
domain, in the order of the module's text::

    *** after provenance: @k ***
    line 12: %x = load float, ptr addrspace(3) %p, align 4 [lds] -> @smem
    line 15: store float %x, ptr addrspace(3) %q, align 4 [lds] -> unknown [REASON] (BLOCKER)

``[lds]`` / ``[args]`` is the domain (the kernel's argument domain for ``args``). A stage
that concludes nothing for a function prints no block for it; a module-wide stage that
concludes nothing prints its header with ``(nothing)``.
"""

from __future__ import annotations

from .. import reasons
from ..analysis.provenance.lattice import Root
from ..analysis.provenance.rootset import LDS_DOMAIN
from ..ir.lexer import split_comment
from .scopes import Decision, Region, ScopeKey, noalias_keys

TYPE_CHECKING = False  # ``typing`` is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .attributes import KernelEdits


#: how the range notes begin (``reasons.NO_RANGE``), and what the printout says for none
_NO_RANGE = reasons.NO_RANGE.text

#: one printed block: the stage, the function (or ``module``) and its lines
Block = tuple[str, str, list[str]]
#: the results of one run's stages so far, by stage name (``pipeline.run_stages``)
Results = dict[str, "Result"]


class Result:
    """What one stage concluded, immutable, and its printout (``--print-after``)."""

    __slots__ = ()
    #: the stage that made it
    stage = ""

    def blocks(self) -> list[Block]:
        """The printed blocks, in the order of the module's text."""
        return []

    def text(self) -> str:
        """The blocks as ``--print-after`` writes them."""
        return _text(self.blocks())


#: what runs each stage of ``pipeline.PIPELINE`` and what it concludes (each stage's ``runs``
#: and ``concludes``; docs/internals.md has them as a table)
ABOUT: dict[str, tuple[str, str]] = {
    "provenance": ("scopes.plan_function",
                   "each access's root(s) in each domain it concerns, or why its pointer is unknown"),
    "ranges": ("regions.RegionSplitter.measure",
               "each LDS access with one root: the bytes [lo, hi) of the root it can touch, or why none "
               "(with --regions)"),
    "arguments": ("attributes.arguments_of",
                  "each kernel's pointer arguments: what --args adds to them, or why nothing"),
    "regions": ("regions.merge_regions",
                "each LDS root's regions, and the scope(s) each of its accesses holds (with --regions)"),
    "dma-safety": ("dma_safety.lowered/guard, scopes.outside_lds",
                   "the claims the LDS-DMA rules withdrew or changed before the domains are counted, with the reason"),
    "scopes": ("scopes.finish",
               "each domain's scopes; each access's !alias.scope and !noalias, or why none"),
    "dma-scopes": ("dma_safety.rescue/residual/scope_dmas/static_lds",
                   "the DMAs the LDS-DMA rules scoped after the domains were counted, and the claims they changed"),
    "write": ("pipeline._write_scopes, metadata.MetadataWriter.flush",
              "the lists written on each access (an access whose own metadata cannot take them is withdrawn) "
              "and the annotated module"),
}


class Stage:
    """One stage of the pipeline: its ``name``, what ``runs`` it (the functions that do the
    work), its ``unit`` (``function`` or ``module``), what it ``concludes``, and ``run``.

    A module stage's ``run(run, got)`` is a function of the run's inputs
    (``function_pass.Run``: the module, its analyses, the options, and the plan and output
    that the stages conclude into) and of ``got``, the results of the stages before it by
    name (the dma-scopes stage reads the dma-safety stage's unsafe inputs there); it
    returns its :class:`Result`. A function stage's ``run(fp, fn, previous)`` takes the
    function pass, one function and the function's result of the stage before it (None for
    the first) and returns its result for that function."""

    name = ""
    runs = ""
    unit = "module"
    concludes = ""

    def run(self, *args: Any, **kwargs: Any) -> Result:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<stage {self.name}>"


# ------------------------------------------------------------------ how a line reads
def _domain(domain: str) -> str:
    if domain == LDS_DOMAIN:
        return "lds"
    # an LDS-DMA's domain of its own (``dma_safety.scope_dmas``)
    return "dma" if domain.startswith("llnoalias.dma.") else "args"


def _root(r: Root) -> str:
    """A root as the IR names it: ``@smem``, ``%a``, ``%a+%b`` for a ``--may-alias`` group."""
    return "+".join(r.members) if r.members else r.name


def _key(k: ScopeKey) -> str:
    if isinstance(k, Region):
        return f"{_root(k.root)}[{k.lo},{k.hi}){' spanning' if k.spanning else ''}"
    return _root(k)


def _code(d: Decision) -> str:
    inst = d.access.inst
    src = inst.function.source
    text = src.text[inst.start:inst.end] if src is not None else inst.opcode
    # the whole instruction without its metadata attachments, spaces collapsed
    return " ".join(split_comment(text).strip().split(", !")[0].split())


def _head(d: Decision) -> str:
    return f"line {d.access.inst.line}: {_code(d)} [{_domain(d.domain)}]"


def _why(reason: str, blocker: str) -> str:
    return f"[{reason}]" + (f" ({blocker})" if blocker else "")


def _text(blocks: list[Block]) -> str:
    out: list[str] = []
    for stage, where, lines in blocks:
        out.append(f"*** after {stage}: {where} ***")
        out.extend(lines)
    return "\n".join(out) + "\n" if out else ""


def _fn_name(d: Decision) -> str:
    return d.access.inst.function.name


# ------------------------------------------------------------------ per function
class FunctionResult(Result):
    """A per-function stage's result for one function: its decisions (the access and domain
    of each, which no stage changes) and the stage's columns, one item per decision."""

    __slots__ = ("function", "decisions")

    def __init__(self, function: str, decisions: Sequence[Decision]) -> None:
        self.function = function
        self.decisions = decisions

    def lines(self) -> list[str]:
        return []

    def concluded(self) -> bool:
        """Is there anything to print for the function (``--print-after`` keeps it)?"""
        return bool(self.decisions)

    def blocks(self) -> list[Block]:
        lines = self.lines()
        return [(self.stage, self.function, lines)] if lines else []


class Facts(FunctionResult):
    """The provenance stage's result for one function: each decision's roots (which no
    later stage rebinds), and why an untraced access has none (``reason``, ``blocker``: a
    snapshot, as later stages rewrite them)."""

    __slots__ = ("reason", "blocker")
    stage = "provenance"

    def __init__(self, function: str, decisions: Sequence[Decision]) -> None:
        super().__init__(function, decisions)
        self.reason = tuple([d.reason for d in decisions])
        self.blocker = tuple([d.blocker for d in decisions])

    def lines(self) -> list[str]:
        lines = []
        for d, reason, blocker in zip(self.decisions, self.reason, self.blocker, strict=True):
            if d.roots:
                lines.append(f"{_head(d)} -> {', '.join(_root(r) for r in d.roots)}")
            else:
                lines.append(f"{_head(d)} -> unknown {_why(reason, blocker)}")
        return lines


class ByteRanges(FunctionResult):
    """The ranges stage's result for one function: each decision's byte range and range
    note (``Decision.byte_range``, ``range_note``: written by this stage only); with
    ``--no-regions`` none (``measured`` false)."""

    __slots__ = ("measured",)
    stage = "ranges"

    def __init__(self, function: str, decisions: Sequence[Decision], measured: bool) -> None:
        super().__init__(function, decisions)
        self.measured = measured

    def lines(self) -> list[str]:
        if not self.measured:
            return (["(not measured: --no-regions)"] if any(d.domain == LDS_DOMAIN for d in self.decisions)
                    else [])
        lines = []
        for d in self.decisions:
            if d.domain != LDS_DOMAIN:
                continue
            if not d.roots:
                lines.append(f"{_head(d)} -> {_NO_RANGE} [no root]")
            elif d.byte_range is not None:
                lo, hi = d.byte_range
                lines.append(f"{_head(d)} -> {_root(d.roots[0])} bytes [{lo}, {hi})")
            else:
                note = d.range_note.removeprefix(f"{_NO_RANGE}: ") or "not measured"
                lines.append(f"{_head(d)} -> {_NO_RANGE} [{note}]")
        return lines


class ArgumentEdits(FunctionResult):
    """The arguments stage's result for one kernel: what ``--args`` decided for its pointer
    arguments (``attributes.KernelEdits``: the records, the attribute text for the define
    line, the loads made ``!invariant.load``), written by the function pass; None for a
    function that is not a kernel."""

    __slots__ = ("edits",)
    stage = "arguments"

    def __init__(self, function: str, decisions: Sequence[Decision], edits: KernelEdits | None) -> None:
        super().__init__(function, decisions)
        self.edits = edits

    def concluded(self) -> bool:
        return self.edits is not None and bool(self.edits.records)

    def lines(self) -> list[str]:
        if self.edits is None:
            return []
        out = []
        for rec in self.edits.records:
            if rec.added:
                out.append(f"{rec.name} -> added {', '.join(rec.added)}")
            elif not rec.rooted:
                out.append(f"{rec.name} -> unrooted {_why(rec.reason, '')}")
            else:
                out.append(f"{rec.name} -> nothing added")
        return out


class PerFunction(Result):
    """A per-function stage's result for the module: its result for each function that
    has decisions, in the module's order."""

    __slots__ = ("stage", "functions")

    def __init__(self, stage: str, functions: Sequence[FunctionResult]) -> None:
        self.stage = stage
        self.functions = tuple(functions)

    def blocks(self) -> list[Block]:
        return [b for r in self.functions for b in r.blocks()]


# ------------------------------------------------------------------ over the module
class Claims(Result):
    """Every decision's claim after a module stage: the scope keys each holds (``keys``),
    and the reason and blocker of one without. The fields of a decision that no stage
    rewrites after the one that concluded them (access, domain, roots, byte range) are read
    from the decision; ``keys`` is a snapshot (key lists are rebound, never changed in
    place, so it holds them as they are), ``reason`` and ``blocker`` too where a later
    stage may rewrite them (``columns``)."""

    __slots__ = ("decisions", "keys", "reason", "blocker")

    def __init__(self, decisions: Sequence[Decision], columns: tuple[str, ...] = ("keys", "reason", "blocker")) -> None:
        self.decisions = tuple(decisions)
        self.keys = tuple([d.keys for d in decisions]) if "keys" in columns else ()
        self.reason = tuple([d.reason for d in decisions]) if "reason" in columns else ()
        self.blocker = tuple([d.blocker for d in decisions]) if "blocker" in columns else ()


class RegionsResult(Claims):
    """The regions stage's result: every decision's keys once each root's regions are
    formed (``ran`` false with ``--no-regions``)."""

    __slots__ = ("ran",)
    stage = "regions"

    def __init__(self, decisions: Sequence[Decision], ran: bool) -> None:
        super().__init__(decisions if ran else (), ("keys",))  # its printout reads no reason
        self.ran = ran

    def blocks(self) -> list[Block]:
        if not self.ran:
            return [(self.stage, "module", ["(not run: --no-regions)"])]
        per_root: dict[int, tuple[Root, list[Region]]] = {}
        by_fn: dict[str, list[str]] = {}
        for d, keys in zip(self.decisions, self.keys, strict=True):
            if d.domain != LDS_DOMAIN or not keys:
                continue
            if len(d.roots) != 1:
                line = f"{_head(d)} -> {', '.join(_key(k) for k in keys)} (several roots: no region)"
                by_fn.setdefault(_fn_name(d), []).append(line)
                continue
            root = d.roots[0]
            entry = per_root.setdefault(id(root), (root, []))
            regions = [k for k in keys if isinstance(k, Region)]
            for k in regions:
                if k not in entry[1]:
                    entry[1].append(k)
            if regions:
                what = ", ".join(_key(k) for k in keys)
            elif d.byte_range is not None:
                what = f"{_root(root)} (the root's only region)"
            else:
                what = f"{_root(root)} ({_NO_RANGE}: the root's own scope)"
            by_fn.setdefault(_fn_name(d), []).append(f"{_head(d)} -> {what}")
        summary = []
        for root, regions in per_root.values():
            plain = sorted((k for k in regions if not k.spanning), key=lambda k: (k.lo, k.hi))
            span = sorted((k for k in regions if k.spanning), key=lambda k: (k.lo, k.hi))
            if not plain:
                summary.append(f"{_root(root)}: one region (keeps its own scope)")
                continue
            text = f"{_root(root)}: {len(plain)} regions " + " ".join(f"[{k.lo},{k.hi})" for k in plain)
            if span:
                text += "; spanning " + " ".join(f"[{k.lo},{k.hi})" for k in span)
            summary.append(text)
        out: list[Block] = [(self.stage, "module", summary or ["(nothing)"])]
        out.extend((self.stage, fn, lines) for fn, lines in by_fn.items())
        return out


class Changes(Result):
    """The dma-scopes stage's result: the claims the LDS-DMA rules that run after the scopes
    stage changed (a rescued DMA's scope) and, where kept, the decisions they added (a DMA's
    domain of its own), each as the decision and its keys, reason and blocker once the rules
    are done, in the plan's order."""

    __slots__ = ("changed",)
    stage = "dma-scopes"

    def __init__(self, changed: Sequence[tuple[Decision, Sequence[ScopeKey], str, str]]) -> None:
        self.changed = tuple(changed)

    def blocks(self) -> list[Block]:
        by_fn: dict[str, list[str]] = {}
        for d, keys, reason, blocker in self.changed:
            if keys:
                line = f"{_head(d)} -> changed to {', '.join(_key(k) for k in keys)}"
            else:
                line = f"{_head(d)} -> withdrawn {_why(reason, blocker)}"
            by_fn.setdefault(_fn_name(d), []).append(line)
        if not by_fn:
            return [(self.stage, "module", ["(no claim changed)"])]
        return [(self.stage, fn, lines) for fn, lines in by_fn.items()]


class Withdrawn(Changes):
    """The dma-safety stage's result: the claims its rules withdrew or changed (as
    :class:`Changes`), and the DMAs of functions whose input is already in the unsafe state
    (``dma_safety.guard``), which the dma-scopes stage rescues once the domains are counted."""

    __slots__ = ("unsafe_in",)
    stage = "dma-safety"

    def __init__(self, changed: Sequence[tuple[Decision, Sequence[ScopeKey], str, str]],
                 unsafe_in: Sequence[Decision]) -> None:
        super().__init__(changed)
        self.unsafe_in = tuple(unsafe_in)


class ScopesResult(Claims):
    """The scopes stage's result: each domain's scopes (``domain_keys``), and every
    decision's claim once the domains are counted (the lists it will be written with:
    ``scopes.noalias_keys``, as the writer makes them)."""

    __slots__ = ("domain_keys",)
    stage = "scopes"

    def __init__(self, decisions: Sequence[Decision], domain_keys: dict[str, list[ScopeKey]]) -> None:
        super().__init__(decisions)
        self.domain_keys = {dom: tuple(keys) for dom, keys in domain_keys.items()}

    def blocks(self) -> list[Block]:
        summary = [f"domain {dom}: " + ", ".join(_key(k) for k in keys) for dom, keys in self.domain_keys.items()]
        out: list[Block] = [(self.stage, "module", summary or ["(nothing)"])]
        by_fn: dict[str, list[str]] = {}
        for d, keys, reason, blocker in zip(self.decisions, self.keys, self.reason, self.blocker, strict=True):
            if keys:
                na = noalias_keys(keys, self.domain_keys.get(d.domain, ()))
                line = (f"{_head(d)} -> scope {', '.join(_key(k) for k in keys)}; "
                        f"noalias {', '.join(_key(k) for k in na) or '(none)'}")
            else:
                line = f"{_head(d)} -> none {_why(reason, blocker)}"
            by_fn.setdefault(_fn_name(d), []).append(line)
        out.extend((self.stage, fn, lines) for fn, lines in by_fn.items())
        return out


# ------------------------------------------------------------------ names, the printer
#: the stages whose results ``--print-after`` and ``--stop-after`` print, in pipeline order
#: (the last stage, ``write``, makes the output itself)
STAGE_NAMES: tuple[str, ...] = ("provenance", "ranges", "arguments", "regions", "dma-safety", "scopes", "dma-scopes")


def parse_stage_names(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The stages named by ``--print-after`` values (each a name, a comma list, or ``all``),
    in pipeline order. ``ValueError`` naming the stages for an unknown name."""
    wanted: set[str] = set()
    for value in values:
        for name in value.split(","):
            name = name.strip()
            if name == "all":
                wanted.update(STAGE_NAMES)
            elif name in STAGE_NAMES:
                wanted.add(name)
            else:
                raise ValueError(f"unknown stage {name!r}; the stages are {', '.join(STAGE_NAMES)} (or all)")
    return tuple(n for n in STAGE_NAMES if n in wanted)


def parse_stage_name(value: str) -> str:
    """The one stage ``--stop-after`` names. ``ValueError`` naming the stages otherwise."""
    name = value.strip()
    if name not in STAGE_NAMES:
        raise ValueError(f"unknown stage {name!r}; the stages are {', '.join(STAGE_NAMES)}")
    return name


class StageLog:
    """The results of the stages asked for (``--print-after``), kept as the pipeline's loop
    makes them (``pipeline.run_stages``); ``text()`` prints them."""

    def __init__(self, names: tuple[str, ...] | list[str]) -> None:
        self.names = parse_stage_names(list(names))
        #: stage name -> its result, in pipeline order once the run is done
        self.results: dict[str, Result] = {}

    def wants(self, name: str) -> bool:
        return name in self.names

    def add(self, result: Result) -> None:
        """Keep ``result`` (``pipeline.run_stages`` calls it after each stage asked for; a
        second run, ``ModuleAnalysis.settle``, replaces the first's)."""
        self.results[result.stage] = result

    def text(self) -> str:
        """Every asked-for stage's result, in pipeline order."""
        return "".join(self.results[n].text() for n in self.names if n in self.results)


__all__ = ["ABOUT", "STAGE_NAMES", "ArgumentEdits", "ByteRanges", "Changes", "Claims", "Facts", "FunctionResult",
           "PerFunction", "RegionsResult", "Result", "Results", "ScopesResult", "Stage", "StageLog", "Withdrawn",
           "parse_stage_name", "parse_stage_names"]
